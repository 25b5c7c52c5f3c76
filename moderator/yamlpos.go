package moderator

import "strings"

// yaml.v3 places a syntax error at the construct it was parsing, not at
// the token that broke it: an unclosed flow mapping is reported at the
// line of the key above it (the parser's context mark, 0-based for parser
// errors), a badly indented line at the start of the block around it. The
// loader scans the file itself to find the offending token: the bracket
// that is never closed, the stray closing bracket, the line whose
// indentation fits no enclosing block, the quote that never ends, the tab
// in an indentation. The scan only ever moves a reported position: what it
// does not recognise keeps yaml.v3's line.

// yamlPos is a 1-based position in a file.
type yamlPos struct{ line, col int }

// yamlOpener is a '{' or '[' that opened a flow collection.
type yamlOpener struct {
	ch byte
	yamlPos
}

// yamlLevel is one block collection enclosing a line: its indentation and
// whether it is a sequence.
type yamlLevel struct {
	indent int
	seq    bool
}

// yamlScan is what scanYAML found, each the first at or after its from
// line.
type yamlScan struct {
	from int
	// unclosed holds the flow collections still open where the block
	// structure resumed (a key or entry no more indented than the line
	// that opened them) or at the end of the file, outermost first.
	unclosed []yamlOpener
	// stray is a closing bracket that closes nothing.
	stray     yamlPos
	strayCh   byte
	badIndent yamlPos
	tab       yamlPos
	// quote is where a quoted scalar that never ends begins.
	quote yamlPos
}

// locateYAMLError returns where the syntax error that yaml.v3 reported as
// "line <line>: <msg>" (line 0: no line) really is in data, a 1-based line
// and column (0: unknown), and a note saying what is wrong there ("" when
// the scan found nothing to add).
func locateYAMLError(data []byte, line int, msg string) (int, int, string) {
	s := scanYAML(data, line)
	innermost := func(want byte) (yamlOpener, bool) {
		for i := len(s.unclosed) - 1; i >= 0; i-- {
			if want == 0 || s.unclosed[i].ch == want {
				return s.unclosed[i], true
			}
		}
		return yamlOpener{}, false
	}
	var want byte
	switch {
	case strings.HasPrefix(msg, "did not find expected ',' or '}'"):
		want = '{'
	case strings.HasPrefix(msg, "did not find expected ',' or ']'"):
		want = '['
	}
	switch {
	case want != 0 || strings.HasPrefix(msg, "did not find expected node content"):
		if o, ok := innermost(want); ok {
			return o.line, o.col, "this '" + string(o.ch) + "' is never closed"
		}
	case strings.HasPrefix(msg, "did not find expected key"), strings.HasPrefix(msg, "did not find expected '-' indicator"):
		if s.stray.line > 0 {
			return s.stray.line, s.stray.col, "this '" + string(s.strayCh) + "' closes nothing"
		}
		if s.badIndent.line > 0 {
			return s.badIndent.line, s.badIndent.col, "the indentation of this line matches no enclosing block"
		}
	case strings.HasPrefix(msg, "found unexpected end of stream"):
		if s.quote.line > 0 {
			return s.quote.line, s.quote.col, "this quoted string is never closed"
		}
	case strings.HasPrefix(msg, "found character that cannot start any token"):
		if s.tab.line > 0 && s.tab.line == line {
			return s.tab.line, s.tab.col, "a tab: YAML indents with spaces only"
		}
	}
	// yaml.v3 numbers the lines of its parser's errors from 0 (its
	// scanner's errors, some of which also say "did not find expected",
	// are corrected already), and may count the end of the file as a line
	// of its own.
	if line > 0 && parserError(msg) {
		line++
	}
	last := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		last++
	}
	return min(line, max(last, 1)), 0, ""
}

// parserError reports whether msg is one of yaml.v3's parser errors,
// whose line it numbers from 0.
func parserError(msg string) bool {
	for _, p := range []string{
		"did not find expected key",
		"did not find expected '-' indicator",
		"did not find expected node content",
		"did not find expected ',' or '}'",
		"did not find expected ',' or ']'",
		"did not find expected <document start>",
	} {
		if strings.HasPrefix(msg, p) {
			return true
		}
	}
	return false
}

// scanYAML scans data for the tokens locateYAMLError looks for: stray
// brackets, bad indentation and tabs are kept from line from on.
func scanYAML(data []byte, from int) yamlScan {
	s := yamlScan{from: from}
	var (
		flow            []yamlOpener
		flowIndent      int  // indentation of the line that opened flow[0]
		quote           byte // the quote of a quoted scalar running on
		quoteAt         yamlPos
		blockScalar     = -1 // the indentation that a block scalar's lines exceed
		levels          []yamlLevel
		prevEmptyValue  bool // the last block line ended in "key:"
		unclosedPending = true
	)
	for i, line := range strings.Split(string(data), "\n") {
		ln := i + 1
		line = strings.TrimSuffix(line, "\r")
		indent := len(line) - len(strings.TrimLeft(line, " "))
		content := strings.TrimLeft(line, " \t")
		blank := content == "" || content[0] == '#'
		if blockScalar >= 0 {
			if blank || indent > blockScalar {
				continue
			}
			blockScalar = -1
		}
		if quote == 0 && len(flow) > 0 && !blank && indent <= flowIndent && looksLikeBlockLine(content) && len(content) == len(line)-indent {
			// The block structure resumes: the flow collections never closed.
			if unclosedPending {
				s.unclosed, unclosedPending = append([]yamlOpener(nil), flow...), false
			}
			flow = nil
		}
		if quote == 0 && len(flow) == 0 {
			if lead := line[:len(line)-len(content)]; strings.IndexByte(lead, '\t') >= 0 && !blank && s.tab.line == 0 && ln >= from {
				s.tab = yamlPos{ln, strings.IndexByte(lead, '\t') + 1}
			}
			if !blank {
				switch {
				case content == "---" || strings.HasPrefix(content, "--- ") || content == "..." || content[0] == '%':
					levels, prevEmptyValue = nil, false
				case len(content) == len(line)-indent: // no tab in the indentation
					if !s.checkIndent(&levels, &prevEmptyValue, ln, indent, content) && s.badIndent.line == 0 && ln >= from {
						s.badIndent = yamlPos{ln, indent + 1}
					}
				}
			}
		}
		// The characters of the line.
		valueStart := quote == 0 // at a place where a node may begin
		closed := false          // just after the outermost flow collection closed
	chars:
		for j := 0; j < len(line); j++ {
			c := line[j]
			switch quote {
			case '"':
				if c == '\\' {
					j++
				} else if c == '"' {
					quote = 0
				}
				continue
			case '\'':
				if c == '\'' {
					if j+1 < len(line) && line[j+1] == '\'' {
						j++
					} else {
						quote = 0
					}
				}
				continue
			}
			spaceAfter := j+1 == len(line) || line[j+1] == ' ' || line[j+1] == '\t'
			switch {
			case c == ' ' || c == '\t':
			case c == '#' && (j == 0 || line[j-1] == ' ' || line[j-1] == '\t'):
				break chars
			case (c == '"' || c == '\'') && valueStart:
				quote, quoteAt = c, yamlPos{ln, j + 1}
			case (c == '{' || c == '[') && (valueStart || len(flow) > 0):
				if len(flow) == 0 {
					flowIndent = indent
				}
				flow = append(flow, yamlOpener{c, yamlPos{ln, j + 1}})
				valueStart, closed = true, false
			case (c == '}' || c == ']') && (len(flow) > 0 || valueStart || closed):
				open := byte('{')
				if c == ']' {
					open = '['
				}
				if len(flow) == 0 || flow[len(flow)-1].ch != open {
					if s.stray.line == 0 && ln >= from {
						s.stray, s.strayCh = yamlPos{ln, j + 1}, c
					}
					if len(flow) == 0 {
						continue
					}
				}
				flow = flow[:len(flow)-1]
				valueStart, closed = false, len(flow) == 0
			case c == ',' && len(flow) > 0:
				valueStart = true
			case c == ':' && (spaceAfter || len(flow) > 0):
				valueStart, closed = true, false
			case (c == '-' || c == '?') && valueStart && spaceAfter && len(flow) == 0:
			case (c == '&' || c == '!') && valueStart:
				// An anchor or tag: the node follows it.
				for j+1 < len(line) && line[j+1] != ' ' {
					j++
				}
			case (c == '|' || c == '>') && valueStart && len(flow) == 0:
				blockScalar = indent
				break chars
			default:
				valueStart, closed = false, false
			}
		}
	}
	if len(flow) > 0 && unclosedPending {
		s.unclosed = flow
	}
	if quote != 0 {
		s.quote = quoteAt
	}
	return s
}

// checkIndent fits a block line (content, indented by indent spaces) into
// the enclosing block collections, and reports whether it fits: it must
// line up with one of them, a sequence holds only entries, and an entry
// next to a mapping's keys must start the value of the key above it.
func (s *yamlScan) checkIndent(levels *[]yamlLevel, prevEmptyValue *bool, ln, indent int, content string) bool {
	dash := content == "-" || strings.HasPrefix(content, "- ")
	emptyValue := *prevEmptyValue
	*prevEmptyValue = endsWithKey(content)
	top := func() *yamlLevel { return &(*levels)[len(*levels)-1] }
	if len(*levels) == 0 || indent > top().indent {
		*levels = append(*levels, yamlLevel{indent, dash})
		return true
	}
	for len(*levels) > 0 && top().indent > indent {
		*levels = (*levels)[:len(*levels)-1]
	}
	switch {
	case len(*levels) == 0 || top().indent != indent:
		*levels = append(*levels, yamlLevel{indent, dash})
		return false
	case top().seq && !dash:
		// The end of a sequence indented like the key it belongs to.
		if n := len(*levels); n >= 2 && (*levels)[n-2].indent == indent && !(*levels)[n-2].seq {
			*levels = (*levels)[:n-1]
			return true
		}
		return false
	case !top().seq && dash:
		if emptyValue {
			*levels = append(*levels, yamlLevel{indent, true})
			return true
		}
		return false
	}
	return true
}

// endsWithKey reports whether a block line ends in a key with no value on
// the line ("key:", maybe followed by a comment).
func endsWithKey(content string) bool {
	if i := strings.Index(content, " #"); i >= 0 {
		content = content[:i]
	}
	return strings.HasSuffix(strings.TrimRight(content, " \t"), ":")
}

// looksLikeBlockLine reports whether content starts like a line of a block
// collection: a sequence entry or a plain "key:".
func looksLikeBlockLine(content string) bool {
	if content == "-" || strings.HasPrefix(content, "- ") {
		return true
	}
	k := strings.IndexByte(content, ':')
	if k <= 0 || (k+1 < len(content) && content[k+1] != ' ') {
		return false
	}
	return !strings.ContainsAny(content[:k], "{}[],#\"'")
}
