package hookstate

import (
	"bytes"
	"hash/crc32"
)

// A sealed document ends with a member that holds a checksum of the bytes
// before it:
//
//	  ...,
//	  "checksum": "crc32:1a2b3c4d"
//	}
//
// A checksum that matches tells a reader that the file is exactly as guard
// wrote it, so that it may skip checking the JSON and trust the layout
// ObjectWriter gives: a line starts with two spaces for each level of
// nesting of what it starts, whatever the value, so that the members of an
// object at one level are found by searching for their indentation. A file
// edited by hand or by another tool does not match, and is read the slow
// way, checking everything; nothing else comes of it. The checksum guards
// against nothing but guard's own shortcuts: it is not a signature.
//
// The seal is the hook-state document's format, so it lives here, not in
// statefile (which stores any document) nor in the file backend: the
// PostgreSQL backend exports and imports the same sealed document.

// ChecksumMember is the name of the member that seals a document. A
// document type must not keep it as a member of its own.
const ChecksumMember = "checksum"

const (
	sealHead = "  \"" + ChecksumMember + "\": \"crc32:"
	sealTail = "\"\n}"
	sealLen  = len(sealHead) + 8 + len(sealTail)
)

// Checksum returns the CRC-32 (IEEE) of the segments, one after the
// other. IEEE rather than Castagnoli: Go sets up its Castagnoli tables in
// a fifth of a millisecond, which every guard run would pay.
func Checksum(segs ...[]byte) uint32 {
	var sum uint32
	for _, s := range segs {
		sum = crc32.Update(sum, crc32.IEEETable, s)
	}
	return sum
}

// Seal returns the end of a sealed document: the checksum member, with
// sum, the checksum of all the bytes before it (which end with ",\n"), and
// the closing brace.
func Seal(sum uint32) []byte {
	b := make([]byte, 0, sealLen)
	b = append(b, sealHead...)
	for shift := 28; shift >= 0; shift -= 4 {
		b = append(b, "0123456789abcdef"[sum>>shift&0xF])
	}
	return append(b, sealTail+"\n"...)
}

// Unseal returns the bytes of a sealed document before its checksum
// member, if data is one and its checksum matches.
func Unseal(data []byte) ([]byte, bool) {
	data = bytes.TrimRight(data, " \t\r\n")
	n := len(data) - sealLen
	if n < 2 || data[n-2] != ',' || data[n-1] != '\n' {
		return nil, false
	}
	end := data[n:]
	if !bytes.HasPrefix(end, []byte(sealHead)) || !bytes.HasSuffix(end, []byte(sealTail)) {
		return nil, false
	}
	var sum uint32
	for _, c := range end[len(sealHead) : len(sealHead)+8] {
		switch {
		case '0' <= c && c <= '9':
			sum = sum<<4 | uint32(c-'0')
		case 'a' <= c && c <= 'f':
			sum = sum<<4 | uint32(c-'a'+10)
		default:
			return nil, false
		}
	}
	if Checksum(data[:n]) != sum {
		return nil, false
	}
	return data[:n], true
}
