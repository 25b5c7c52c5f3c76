package objects

// Aliases are XXH64 values, so a table's sorted aliases are spread evenly
// over their range, and the position of an alias can be estimated from its
// value: an interpolation search finds it in O(log log n) probes of the
// mapped table (about 4 for 100,000 aliases) instead of the ~17 of a
// binary search. Every few probes it bisects instead, so a table of
// clustered aliases (crafted nodes) still costs O(log n).

// aliasDigit maps a canonical alias character to its value.
var aliasDigit = func() (t [256]uint8) {
	for i := range len(crockford) {
		t[crockford[i]] = uint8(i)
	}
	return t
}()

// aliasValue is the number a canonical alias (or a prefix of one, read as
// if padded with zeros) spells. Aliases compare as strings the way their
// values compare as numbers.
func aliasValue[T ~string | ~[]byte](a T) uint64 {
	var v uint64
	for i := range AliasLen {
		v <<= 5
		if i < len(a) {
			v |= uint64(aliasDigit[a[i]])
		}
	}
	return v
}

// keyAt returns the alias of record i, in the mapped table.
func (t *table) keyAt(i int) []byte {
	off := tableHeaderLen + i*aliasRecLen
	return t.mapped[off : off+AliasLen]
}

// searchMapped is search over the mapped table.
func (t *table) searchMapped(a string) int {
	target := aliasValue(a)
	// Records before lo are below a; records from hi on are not.
	lo, hi := 0, t.nAliases
	for probe := 0; hi-lo > 8; probe++ {
		vlo, vhi := aliasValue(t.keyAt(lo)), aliasValue(t.keyAt(hi-1))
		if target <= vlo {
			return lo
		}
		if target > vhi {
			return hi
		}
		mid := lo + (hi-lo)/2
		if probe%4 != 3 { // interpolate; every fourth probe bisects
			frac := float64(target-vlo) / float64(vhi-vlo)
			mid = lo + int(frac*float64(hi-1-lo))
			mid = max(lo+1, min(mid, hi-1))
		}
		if aliasValue(t.keyAt(mid)) < target {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for lo < hi && aliasValue(t.keyAt(lo)) < target {
		lo++
	}
	return lo
}
