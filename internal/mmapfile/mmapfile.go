// Package mmapfile maps files read-only into memory, for readers of large
// files that git replaces by rename and never changes in place (pack
// files and their indexes, the alias tables, packed-refs). Where mapping
// is not available, Map returns nil and the caller reads the file.
package mmapfile
