package format

import (
	"errors"
	"fmt"
	"strings"
)

// checkDate accepts an RFC 3339 full-date, YYYY-MM-DD, of a day that
// exists in the proleptic Gregorian calendar (0000 to 9999).
func checkDate(s string) error {
	if len(s) != 10 || s[4] != '-' || s[7] != '-' {
		return errors.New("not of the form YYYY-MM-DD")
	}
	y, oky := number(s[:4])
	m, okm := number(s[5:7])
	d, okd := number(s[8:])
	if !oky || !okm || !okd {
		return errors.New("not of the form YYYY-MM-DD")
	}
	if m < 1 || m > 12 {
		return errors.New("month out of range")
	}
	if d < 1 || d > daysIn(m, y) {
		return errors.New("day out of range")
	}
	return nil
}

// daysIn returns the number of days of month m (1 to 12) of year y.
func daysIn(m, y int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// checkTime accepts an RFC 3339 full-time, hh:mm:ss[.frac] followed by
// "Z" or an offset ±hh:mm, either letter in either case. A leap second,
// ss of 60, is accepted only at 23:59 UTC, the offset taken away.
//
// The old validator read each two-digit field with strconv.Atoi and so
// took "+1:00:00Z" and "-0:00:00Z"; RFC 3339 has two digits there, and so
// does this checker.
func checkTime(s string) error {
	if len(s) < len("hh:mm:ssZ") {
		return errors.New("shorter than hh:mm:ssZ")
	}
	if s[2] != ':' || s[5] != ':' {
		return errors.New("not of the form hh:mm:ss")
	}
	h, okh := number(s[:2])
	m, okm := number(s[3:5])
	sec, oks := number(s[6:8])
	if !okh || !okm || !oks {
		return errors.New("hour, minute or second is not two digits")
	}
	if h > 23 || m > 59 || sec > 60 {
		return errors.New("hour, minute or second out of range")
	}
	rest := s[8:]
	if frac, ok := strings.CutPrefix(rest, "."); ok {
		n := leadingDigits(frac)
		if n == 0 {
			return errors.New("no digits in the second fraction")
		}
		rest = frac[n:]
	}
	offset := 0 // minutes east of UTC
	switch {
	case rest == "Z" || rest == "z":
	case len(rest) != len("+hh:mm"):
		return errors.New("offset is not Z or ±hh:mm")
	case rest[0] != '+' && rest[0] != '-':
		return errors.New("offset does not start with + or -")
	case rest[3] != ':':
		return errors.New("offset is not of the form ±hh:mm")
	default:
		oh, okh := number(rest[1:3])
		om, okm := number(rest[4:])
		if !okh || !okm {
			return errors.New("offset hour or minute is not two digits")
		}
		if oh > 23 || om > 59 {
			return errors.New("offset hour or minute out of range")
		}
		offset = oh*60 + om
		if rest[0] == '-' {
			offset = -offset
		}
	}
	if sec == 60 {
		const day = 24 * 60
		if utc := ((h*60+m-offset)%day + day) % day; utc != 23*60+59 {
			return errors.New("leap second not at 23:59 UTC")
		}
	}
	return nil
}

// checkDateTime accepts an RFC 3339 date-time: a date, "T" or "t", and a
// time as checkDate and checkTime accept them.
func checkDateTime(s string) error {
	if len(s) < len("YYYY-MM-DDThh:mm:ssZ") {
		return errors.New("shorter than YYYY-MM-DDThh:mm:ssZ")
	}
	if s[10] != 'T' && s[10] != 't' {
		return errors.New("11th character is not T")
	}
	if err := checkDate(s[:10]); err != nil {
		return fmt.Errorf("date: %w", err)
	}
	if err := checkTime(s[11:]); err != nil {
		return fmt.Errorf("time: %w", err)
	}
	return nil
}

// checkDuration accepts an RFC 3339 (appendix A) duration: "P" then
// either weeks, nW, or any of nY nM nD in that order followed by an
// optional "T" and any of nH nM nS in that order, at least one element in
// all and one after a "T". As with the old validator and ISO 8601, units
// may be skipped ("P1Y1D", "PT1H1S"), which the appendix's grammar does
// not allow.
func checkDuration(s string) error {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok {
		return errors.New("does not start with P")
	}
	if rest == "" {
		return errors.New("nothing after P")
	}
	if weeks, ok := strings.CutSuffix(rest, "W"); ok {
		if !allDigits(weeks) {
			return errors.New("weeks are not a number")
		}
		return nil
	}
	date, clock, hasT := strings.Cut(rest, "T")
	if err := durationUnits(date, "YMD"); err != nil {
		return err
	}
	if !hasT {
		return nil
	}
	if clock == "" {
		return errors.New("nothing after T")
	}
	return durationUnits(clock, "HMS")
}

// durationUnits checks s, a run of number-unit pairs whose units must come
// from all, in its order, each at most once.
func durationUnits(s, all string) error {
	units := all
	for s != "" {
		n := leadingDigits(s)
		if n == 0 {
			return errors.New("a unit without a number")
		}
		s = s[n:]
		if s == "" {
			return errors.New("a number without a unit")
		}
		j := strings.IndexByte(units, s[0])
		if j < 0 {
			if strings.IndexByte(all, s[0]) < 0 {
				return fmt.Errorf("%q is not a unit here", s[0])
			}
			return fmt.Errorf("unit %q out of order or repeated", s[0])
		}
		units, s = units[j+1:], s[1:]
	}
	return nil
}

// checkPeriod accepts an ISO 8601 time interval of RFC 3339 parts:
// start/end, start/duration or duration/end, with start and end
// date-times.
func checkPeriod(s string) error {
	start, end, ok := strings.Cut(s, "/")
	if !ok {
		return errors.New("no slash")
	}
	if strings.HasPrefix(start, "P") {
		if err := checkDuration(start); err != nil {
			return fmt.Errorf("start duration: %w", err)
		}
		if err := checkDateTime(end); err != nil {
			return fmt.Errorf("end date-time: %w", err)
		}
		return nil
	}
	if err := checkDateTime(start); err != nil {
		return fmt.Errorf("start date-time: %w", err)
	}
	if strings.HasPrefix(end, "P") {
		if err := checkDuration(end); err != nil {
			return fmt.Errorf("end duration: %w", err)
		}
		return nil
	}
	if err := checkDateTime(end); err != nil {
		return fmt.Errorf("end date-time: %w", err)
	}
	return nil
}
