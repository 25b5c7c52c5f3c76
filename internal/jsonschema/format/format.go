// Package format checks the standard string formats of JSON Schema.
//
// This is a placeholder with two formats; the full package replaces it.
package format

import (
	"errors"
	"strings"
	"time"
)

// Lookup returns the checker of a standard format name. A checker lets
// every value that is not a string pass.
func Lookup(name string) (check func(v any) error, ok bool) {
	switch name {
	case "date-time":
		return dateTime, true
	case "email":
		return email, true
	}
	return nil, false
}

func dateTime(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	_, err := time.Parse(time.RFC3339, s)
	return err
}

func email(v any) error {
	s, ok := v.(string)
	if !ok {
		return nil
	}
	if i := strings.LastIndexByte(s, '@'); i <= 0 || i == len(s)-1 {
		return errors.New("missing @")
	}
	return nil
}
