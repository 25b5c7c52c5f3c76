package objects

import (
	"fmt"
)

// applyDelta rebuilds an object from its delta base and a git delta: the
// base's size and the result's, each a little-endian base-128 number, then
// instructions that either copy a range of the base (high bit set: the low
// four bits say which offset bytes follow, the next three which size bytes;
// a size of zero means 64 KiB) or insert the next n bytes of the delta
// (1 ≤ n ≤ 127). A delta that does not fit its base, or builds a result of
// another size, is errPackEntry.
func applyDelta(base, delta []byte) ([]byte, error) {
	baseSize, n := deltaVarint(delta)
	if n == 0 || baseSize != uint64(len(base)) {
		return nil, fmt.Errorf("delta base size %d, base has %d bytes: %w", baseSize, len(base), errPackEntry)
	}
	delta = delta[n:]
	targetSize, n := deltaVarint(delta)
	if n == 0 || targetSize > uint64(maxInt) {
		return nil, fmt.Errorf("delta target size: %w", errPackEntry)
	}
	delta = delta[n:]
	out := make([]byte, 0, targetSize)
	for len(delta) > 0 {
		c := delta[0]
		delta = delta[1:]
		switch {
		case c&0x80 != 0:
			var off, size uint64
			for i := range 4 {
				if c&(1<<i) != 0 {
					if len(delta) == 0 {
						return nil, fmt.Errorf("delta copy instruction cut short: %w", errPackEntry)
					}
					off |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			for i := range 3 {
				if c&(0x10<<i) != 0 {
					if len(delta) == 0 {
						return nil, fmt.Errorf("delta copy instruction cut short: %w", errPackEntry)
					}
					size |= uint64(delta[0]) << (8 * i)
					delta = delta[1:]
				}
			}
			if size == 0 {
				size = 0x10000
			}
			if off+size > uint64(len(base)) || uint64(len(out))+size > targetSize {
				return nil, fmt.Errorf("delta copies past its base or target: %w", errPackEntry)
			}
			out = append(out, base[off:off+size]...)
		case c != 0:
			if int(c) > len(delta) || uint64(len(out))+uint64(c) > targetSize {
				return nil, fmt.Errorf("delta inserts past its end or target: %w", errPackEntry)
			}
			out = append(out, delta[:c]...)
			delta = delta[c:]
		default:
			return nil, fmt.Errorf("delta instruction 0: %w", errPackEntry)
		}
	}
	if uint64(len(out)) != targetSize {
		return nil, fmt.Errorf("delta built %d bytes, want %d: %w", len(out), targetSize, errPackEntry)
	}
	return out, nil
}

const maxInt = int(^uint(0) >> 1)

// deltaVarint reads a little-endian base-128 number from the start of b
// and returns it and the bytes it took; 0 bytes when b holds none.
func deltaVarint(b []byte) (uint64, int) {
	var v uint64
	for i, shift := 0, 0; i < len(b) && shift <= 63; i, shift = i+1, shift+7 {
		v |= uint64(b[i]&0x7f) << shift
		if b[i]&0x80 == 0 {
			return v, i + 1
		}
	}
	return 0, 0
}
