package cmdutil

import (
	"os/exec"
	"runtime"
)

// OpenInBrowser asks the desktop to open url in the default browser: open
// on macOS, the URL handler on Windows, xdg-open elsewhere. It returns once
// the opener has started, without waiting for it.
func OpenInBrowser(url string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }()
	return nil
}
