// Package atomicfile replaces files whole: a reader sees the old content
// or the new one, never a mix, because the new content is written to a
// temporary file in the same directory and renamed over the old name.
package atomicfile

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data, with permissions perm. On failure path is
// left as it was and the temporary file is removed.
func Write(path string, data []byte, perm fs.FileMode) error {
	return replace(path, perm, func(f *os.File) error {
		_, err := f.Write(data)
		return err
	})
}

// WriteFrom replaces path with what write writes, with permissions perm,
// through a buffer: content made piece by piece need not be gathered in
// memory first. On failure (of write too) path is left as it was and the
// temporary file is removed.
func WriteFrom(path string, perm fs.FileMode, write func(io.Writer) error) error {
	return replace(path, perm, func(f *os.File) error {
		bw := bufio.NewWriterSize(f, 64<<10)
		if err := write(bw); err != nil {
			return err
		}
		return bw.Flush()
	})
}

// replace writes a temporary file with write and renames it to path.
func replace(path string, perm fs.FileMode, write func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	werr := write(tmp)
	if werr == nil {
		werr = tmp.Chmod(perm)
	}
	if cerr := tmp.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), path)
	}
	if werr != nil {
		_ = os.Remove(tmp.Name())
	}
	return werr
}
