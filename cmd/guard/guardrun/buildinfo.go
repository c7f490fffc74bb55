package guardrun

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"runtime/debug"

	"guard/internal/safeopen"
)

// ReadBuildInfo returns the build information of the Go program at path,
// as debug/buildinfo.ReadFile would, for the ELF (Linux and most Unixes),
// Mach-O (macOS) and PE (Windows) programs Go 1.18 and later write. It reads only the
// headers and one section. (debug/buildinfo would do, but linking it
// brings in debug/dwarf, debug/elf and the rest, whose package
// initialisation every guard call would pay for; guard needs this only to
// check a guard-pg before handing a database state over to it.)
func ReadBuildInfo(path string) (*debug.BuildInfo, error) {
	f, err := safeopen.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [64]byte
	if _, err := io.ReadFull(f, head[:]); err != nil {
		return nil, errNotGo
	}
	var off, size uint64
	switch {
	case bytes.HasPrefix(head[:], []byte("\x7fELF")):
		off, size, err = elfSection(f, head[:], ".go.buildinfo")
	case binary.LittleEndian.Uint32(head[:]) == 0xfeedfacf:
		off, size, err = machoSection(f, head[:], "__go_buildinfo")
	case bytes.HasPrefix(head[:], []byte("MZ")):
		off, size, err = peDataSection(f, head[:])
	default:
		return nil, errNotGo
	}
	if err != nil {
		return nil, err
	}
	// The section: a 32-byte header (magic, pointer size, flags), then,
	// with flag 2, the Go version and the module information, each a
	// uvarint length and its bytes.
	data := make([]byte, min(size, 64<<10))
	if _, err := f.ReadAt(data, int64(off)); err != nil && err != io.EOF {
		return nil, errNotGo
	}
	if len(data) < 32 || !bytes.HasPrefix(data, []byte("\xff Go buildinf:")) || data[15]&2 == 0 {
		return nil, errNotGo
	}
	rest := data[32:]
	var strs [2]string
	for i := range strs {
		n, k := binary.Uvarint(rest)
		if k <= 0 || n > uint64(len(rest)-k) {
			return nil, errNotGo
		}
		strs[i], rest = string(rest[k:k+int(n)]), rest[k+int(n):]
	}
	mod := strs[1]
	// The module information is framed by 16-byte sentinels.
	if len(mod) >= 33 && mod[len(mod)-17] == '\n' {
		mod = mod[16 : len(mod)-16]
	} else {
		mod = ""
	}
	info, err := debug.ParseBuildInfo(mod)
	if err != nil {
		return nil, errNotGo
	}
	info.GoVersion = strs[0]
	return info, nil
}

var errNotGo = errors.New("not a Go program")

// elfSection returns the file offset and size of the ELF section name.
func elfSection(f io.ReaderAt, head []byte, name string) (off, size uint64, err error) {
	var bo binary.ByteOrder = binary.LittleEndian
	if head[5] == 2 {
		bo = binary.BigEndian
	}
	wide := head[4] == 2 // 64-bit
	var shoff uint64
	var shentsize, shnum, shstrndx int
	if wide {
		shoff = bo.Uint64(head[0x28:])
		shentsize, shnum, shstrndx = int(bo.Uint16(head[0x3a:])), int(bo.Uint16(head[0x3c:])), int(bo.Uint16(head[0x3e:]))
	} else {
		shoff = uint64(bo.Uint32(head[0x20:]))
		shentsize, shnum, shstrndx = int(bo.Uint16(head[0x2e:])), int(bo.Uint16(head[0x30:])), int(bo.Uint16(head[0x32:]))
	}
	if shnum == 0 || shnum > 1<<12 || shstrndx >= shnum || shentsize < 40 {
		return 0, 0, errNotGo
	}
	table := make([]byte, shnum*shentsize)
	if _, err := f.ReadAt(table, int64(shoff)); err != nil {
		return 0, 0, errNotGo
	}
	section := func(i int) (nameOff uint32, off, size uint64) {
		h := table[i*shentsize:]
		if wide {
			return bo.Uint32(h), bo.Uint64(h[24:]), bo.Uint64(h[32:])
		}
		return bo.Uint32(h), uint64(bo.Uint32(h[16:])), uint64(bo.Uint32(h[20:]))
	}
	_, stroff, strsize := section(shstrndx)
	strs := make([]byte, min(strsize, 1<<20))
	if _, err := f.ReadAt(strs, int64(stroff)); err != nil {
		return 0, 0, errNotGo
	}
	for i := range shnum {
		n, off, size := section(i)
		if int(n) < len(strs) && cstring(strs[n:]) == name {
			return off, size, nil
		}
	}
	return 0, 0, errNotGo
}

// machoSection returns the file offset and size of the 64-bit Mach-O
// section name (little-endian: amd64 and arm64).
func machoSection(f io.ReaderAt, head []byte, name string) (off, size uint64, err error) {
	bo := binary.LittleEndian
	ncmds, sizeofcmds := int(bo.Uint32(head[16:])), int(bo.Uint32(head[20:]))
	if ncmds > 1<<12 || sizeofcmds > 1<<22 {
		return 0, 0, errNotGo
	}
	cmds := make([]byte, sizeofcmds)
	if _, err := f.ReadAt(cmds, 32); err != nil {
		return 0, 0, errNotGo
	}
	for i := 0; i < ncmds && len(cmds) >= 8; i++ {
		cmd, cmdsize := bo.Uint32(cmds), int(bo.Uint32(cmds[4:]))
		if cmdsize < 8 || cmdsize > len(cmds) {
			return 0, 0, errNotGo
		}
		if cmd == 0x19 && cmdsize >= 72 { // LC_SEGMENT_64
			nsects := int(bo.Uint32(cmds[64:]))
			for s := 0; s < nsects && 72+(s+1)*80 <= cmdsize; s++ {
				h := cmds[72+s*80:]
				if cstring(h[:16]) == name {
					return uint64(bo.Uint32(h[48:])), bo.Uint64(h[40:]), nil
				}
			}
		}
		cmds = cmds[cmdsize:]
	}
	return 0, 0, errNotGo
}

// peDataSection returns the file offset and size of a PE program's data
// section, the first one that holds initialised data, readable and
// writable (as debug/buildinfo finds it): Go's linker puts the build
// information at its start, where Windows has no section of its own for it.
func peDataSection(f io.ReaderAt, head []byte) (off, size uint64, err error) {
	bo := binary.LittleEndian
	pe := int64(bo.Uint32(head[0x3c:]))
	var coff [24]byte // "PE\0\0" and the COFF file header
	if _, err := f.ReadAt(coff[:], pe); err != nil || !bytes.HasPrefix(coff[:], []byte("PE\x00\x00")) {
		return 0, 0, errNotGo
	}
	nsects, optSize := int(bo.Uint16(coff[6:])), int64(bo.Uint16(coff[20:]))
	if nsects > 1<<10 {
		return 0, 0, errNotGo
	}
	table := make([]byte, nsects*40)
	if _, err := f.ReadAt(table, pe+24+optSize); err != nil {
		return 0, 0, errNotGo
	}
	const (
		initialisedData = 0x00000040 // IMAGE_SCN_CNT_INITIALIZED_DATA
		readable        = 0x40000000 // IMAGE_SCN_MEM_READ
		writable        = 0x80000000 // IMAGE_SCN_MEM_WRITE
		alignment       = 0x00f00000 // IMAGE_SCN_ALIGN_*
	)
	for h := table; len(h) >= 40; h = h[40:] {
		virtualSize, rawSize, rawOff := bo.Uint32(h[8:]), bo.Uint32(h[16:]), bo.Uint32(h[20:])
		if bo.Uint32(h[12:]) != 0 && virtualSize != 0 && bo.Uint32(h[36:])&^alignment == initialisedData|readable|writable {
			return uint64(rawOff), uint64(min(rawSize, virtualSize)), nil
		}
	}
	return 0, 0, errNotGo
}

// cstring returns b up to its first NUL.
func cstring(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
