package hookstate

import (
	"bytes"
	"testing"
)

func TestSealAndUnseal(t *testing.T) {
	body := []byte("{\n  \"a\": 1,\n")
	data := append(bytes.Clone(body), Seal(Checksum(body))...)
	if got, ok := Unseal(data); !ok || string(got) != string(body) {
		t.Fatalf("Unseal(%q) = %q, %v", data, got, ok)
	}
	if !bytes.HasSuffix(data, []byte("\"\n}\n")) {
		t.Errorf("sealed document does not end in a closing brace and newline: %q", data)
	}
	// encoding/json hands an Unmarshaler the value without the newline.
	if _, ok := Unseal(bytes.TrimSpace(data)); !ok {
		t.Error("a sealed document without its final newline does not unseal")
	}
	for _, bad := range [][]byte{
		bytes.Replace(data, []byte(`"a": 1`), []byte(`"a": 2`), 1), // edited
		bytes.Replace(data, []byte(`crc32:`), []byte(`crc32:0`), 1),
		data[:len(data)-3],
		[]byte(`{"a": 1}`),
		nil,
	} {
		if _, ok := Unseal(bad); ok {
			t.Errorf("Unseal(%q) = ok", bad)
		}
	}
	if Checksum([]byte("ab"), nil, []byte("c")) != Checksum([]byte("abc")) {
		t.Error("the checksum of segments is not that of their bytes")
	}
}

func BenchmarkChecksum(b *testing.B) {
	data := bytes.Repeat([]byte(`{"state": "closed", "failure_count": 0},`+"\n"), 16<<10)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		Checksum(data)
	}
}
