package chain

import (
	"bytes"
	"os"
)

// EntryCacheLines counts the valid and the damaged record lines of an entry
// cache file, and reports whether its header is the current one.
func EntryCacheLines(path string) (valid, bad int, current bool, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, false, err
	}
	if !bytes.HasPrefix(data, []byte(entryCacheHeader())) {
		return 0, 0, false, nil
	}
	for _, line := range bytes.SplitAfter(data[len(entryCacheHeader()):], []byte{'\n'}) {
		if len(line) == 0 {
			continue
		}
		if _, ok := parseEntryRecord(bytes.TrimSuffix(line, []byte{'\n'})); ok && line[len(line)-1] == '\n' {
			valid++
		} else {
			bad++
		}
	}
	return valid, bad, true, nil
}
