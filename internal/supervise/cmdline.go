package supervise

import (
	"bytes"
	"encoding/binary"
	"io"
	"strings"
)

// Windows has no argv: a program gets one command line and splits it
// itself. syscall.StartProcess writes it as the Microsoft C runtime splits
// it. Programs of the MSYS2 and Cygwin runtimes (Git Bash's bash and sh,
// which run a hook's -c string on Windows) split it otherwise when their
// parent is not one of theirs (build_argv, quoted and globify in the
// runtime's dcrt0.cc): ' quotes as " does, a word with * ? [ { ~ in it
// outside quotes is globbed against the files there, and inside quotes
// \\ stands for one backslash. So "grep -E 'a\\\\b' x" would reach bash as
// grep -E 'a\\b' x, and a bare it's would lose its quote. guard writes the
// command line of such a program itself (posixCmdLine); this file is
// portable so that its tests run on Linux.

// The runtimes whose programs split a command line their own way.
const (
	msysDLL   = "msys-2.0.dll" // Git for Windows, MSYS2
	cygwinDLL = "cygwin1.dll"
)

// posixQuoted reports whether one of args holds a character that a
// program of the MSYS2 or Cygwin runtime could read otherwise than the
// Microsoft C runtime does, in syscall.StartProcess's command line.
func posixQuoted(args []string) bool {
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, "\\'\"*?[]{}()~\n\r") {
			return true
		}
	}
	return false
}

// posixCmdLine returns the command line that a program of the MSYS2 or
// Cygwin runtime started by a Windows program splits back into argv as it
// is: each argument in double quotes; where the runtime globs (glob), with
// \ and " escaped by a backslash, which it then takes for the character
// itself; where it does not (MSYS=noglob), it takes quotes off and nothing
// else, so a " is written outside them, in single quotes.
func posixCmdLine(argv []string, glob bool) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte('"')
		switch {
		case i == 0:
			b.WriteString(a) // a program's path holds no quote; it is never globbed
		case glob:
			for j := 0; j < len(a); j++ {
				if a[j] == '\\' || a[j] == '"' {
					b.WriteByte('\\')
				}
				b.WriteByte(a[j])
			}
		default:
			b.WriteString(strings.ReplaceAll(a, `"`, `"'"'"`))
		}
		b.WriteByte('"')
	}
	return b.String()
}

// runtimeGlobs reports whether a program of the runtime dll globs its
// command line in the environment env: unless the runtime's own variable
// (MSYS for MSYS2's, CYGWIN for Cygwin's) says noglob; the last word about
// it counts, as the runtime reads its options in order.
func runtimeGlobs(dll string, env []string) bool {
	name := "CYGWIN="
	if dll == msysDLL {
		name = "MSYS="
	}
	glob := true
	for _, kv := range env {
		if len(kv) < len(name) || !strings.EqualFold(kv[:len(name)], name) {
			continue
		}
		glob = true // the last value set counts
		for _, opt := range strings.Fields(kv[len(name):]) {
			switch {
			case opt == "noglob":
				glob = false
			case opt == "glob" || strings.HasPrefix(opt, "glob:"):
				glob = true
			}
		}
	}
	return glob
}

// posixRuntime returns the runtime DLL (msysDLL, cygwinDLL) that the PE
// program in r imports, or "" if it imports neither or is not a PE
// program: it reads the headers and the import directory's names.
func posixRuntime(r io.ReaderAt) string {
	le := binary.LittleEndian
	var head [64]byte
	if _, err := r.ReadAt(head[:], 0); err != nil || !bytes.HasPrefix(head[:], []byte("MZ")) {
		return ""
	}
	pe := int64(le.Uint32(head[0x3c:]))
	// "PE\0\0", the COFF file header, and the optional header up to its
	// data directories' import entry.
	var hdr [24 + 112 + 16]byte
	if _, err := r.ReadAt(hdr[:], pe); err != nil || !bytes.HasPrefix(hdr[:], []byte("PE\x00\x00")) {
		return ""
	}
	nsects, optSize := int(le.Uint16(hdr[6:])), int64(le.Uint16(hdr[20:]))
	opt := hdr[24:]
	dirs := 112 // PE32+
	if le.Uint16(opt) == 0x10b {
		dirs = 96 // PE32
	} else if le.Uint16(opt) != 0x20b {
		return ""
	}
	if optSize < int64(dirs+16) || nsects > 1<<10 {
		return ""
	}
	imports := le.Uint32(opt[dirs+8:]) // entry 1: the import directory's address
	sects := make([]byte, 40*nsects)
	if imports == 0 || readFull(r, sects, pe+24+optSize) != nil {
		return ""
	}
	offset := func(rva uint32) int64 { // the file offset of an address, or -1
		for h := sects; len(h) >= 40; h = h[40:] {
			va, size := le.Uint32(h[12:]), max(le.Uint32(h[8:]), le.Uint32(h[16:]))
			if rva >= va && rva-va < size {
				return int64(le.Uint32(h[20:])) + int64(rva-va)
			}
		}
		return -1
	}
	dir := offset(imports)
	for i := int64(0); dir >= 0 && i < 256; i++ {
		var d [20]byte // IMAGE_IMPORT_DESCRIPTOR; the last is all zeros
		if readFull(r, d[:], dir+20*i) != nil || le.Uint32(d[12:]) == 0 {
			return ""
		}
		var name [16]byte
		if at := offset(le.Uint32(d[12:])); at >= 0 {
			n, _ := r.ReadAt(name[:], at)
			switch dll := strings.ToLower(cstring(name[:n])); dll {
			case msysDLL, cygwinDLL:
				return dll
			}
		}
	}
	return ""
}

// readFull reads len(b) bytes at off.
func readFull(r io.ReaderAt, b []byte, off int64) error {
	if n, err := r.ReadAt(b, off); n < len(b) {
		return err
	}
	return nil
}

// cstring returns b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
