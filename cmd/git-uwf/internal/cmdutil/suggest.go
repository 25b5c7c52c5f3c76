package cmdutil

import "strings"

// Suggest returns the candidate closest to input (case-insensitive edit
// distance, or input as a unique-enough prefix), or "" when none is close:
// one edit for words under six letters, two for longer ones (a mistyped
// thread id is two characters off at most, not a third of its length).
func Suggest(input string, candidates []string) string {
	in := strings.ToLower(input)
	best, bestDist := "", -1
	limit := min(max(1, len(in)/3), 2)
	for _, c := range candidates {
		if c == "" || c == input {
			continue
		}
		lc := strings.ToLower(c)
		d := editDistance(in, lc)
		if strings.HasPrefix(lc, in) && len(in) >= 3 {
			d = min(d, 1)
		}
		if d <= limit && (bestDist < 0 || d < bestDist) {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean is Suggest phrased for an error message: ` (did you mean
// "x"?)` or "".
func DidYouMean(input string, candidates []string) string {
	if s := Suggest(input, candidates); s != "" {
		return " (did you mean \"" + s + "\"?)"
	}
	return ""
}

// editDistance is the optimal-string-alignment distance between a and b,
// in bytes: insertions, deletions, substitutions and swaps of neighbours
// ("shwo" → "show") cost one each.
func editDistance(a, b string) int {
	rows := make([][]int, len(a)+1)
	for i := range rows {
		rows[i] = make([]int, len(b)+1)
		rows[i][0] = i
	}
	for j := range rows[0] {
		rows[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d := min(rows[i-1][j]+1, rows[i][j-1]+1, rows[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d = min(d, rows[i-2][j-2]+1)
			}
			rows[i][j] = d
		}
	}
	return rows[len(a)][len(b)]
}
