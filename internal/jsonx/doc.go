// Package jsonx is guard's small JSON reader and writer, for the files on
// the hot path of every guard call: a scanner that lists an object's
// members without decoding them (Members, Find), parsers of single values,
// an ObjectWriter that writes members in a fixed order with
// encoding/json's escaping, Extra for members a type does not know (kept
// exactly across a rewrite), and Time, the state files' timestamp.
//
// It stands in for encoding/json where guard must not pay for reflection:
// decoding and re-encoding a 10-key hook_state.json by hand takes about a
// quarter of what encoding/json takes while keeping unknown members
// (BENCHMARKS.md, "Shortcuts"). Each piece is checked against encoding/json
// by a differential test or fuzzer (TestObjectWriterMatchesMarshalIndent,
// FuzzStrings, FuzzParseString, FuzzMembers, FuzzFind). Anything not on
// the hot path (the cooldown file, exports) uses encoding/json with
// UnmarshalObject and MarshalObject, which keep unknown members too.
package jsonx
