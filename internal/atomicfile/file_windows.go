//go:build windows

package atomicfile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/windows"
)

// openFile is os.OpenFile, not inherited by child processes.
func openFile(path string, flag int, perm os.FileMode) (*os.File, error) {
	h, err := syscall.Open(path, flag|syscall.O_CLOEXEC, uint32(perm.Perm()))
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}

// Rename renames from to to, replacing to, write-through: the rename is
// on disk when it returns, so there is no directory to sync after it.
//
// It renames with POSIX semantics first (SetFileInformationByHandle,
// FileRenameInfoEx, FILE_RENAME_FLAG_REPLACE_IF_EXISTS|
// FILE_RENAME_FLAG_POSIX_SEMANTICS; Windows 10 1709 and later, on NTFS):
// the old file is replaced even while a reader has it open (with
// FILE_SHARE_DELETE, as guard's readers open it), and that reader goes on
// reading the old one. The handle that renames is opened with
// FILE_FLAG_WRITE_THROUGH, which is what MoveFileEx's
// MOVEFILE_WRITE_THROUGH asks for. A read-only file is replaced, as on
// Unix (FILE_RENAME_FLAG_IGNORE_READONLY_ATTRIBUTE, Windows 10 1809 and
// later; the new file keeps the read-only attribute, as it keeps a mode on
// Unix); a Windows that does not know that flag renames without it, and
// then cannot replace a read-only file. Where that rename is not available
// (FAT, exFAT, a network share, an older Windows), it falls back to
// MoveFileEx(MOVEFILE_REPLACE_EXISTING|MOVEFILE_WRITE_THROUGH), which fails
// while the target is open anywhere. Either way a refusal because another
// program holds one of the files without FILE_SHARE_DELETE (an antivirus
// scanning the new file, an editor) is retried for up to half a second.
func Rename(from, to string) error {
	flags := uint32(windows.FILE_RENAME_REPLACE_IF_EXISTS | windows.FILE_RENAME_POSIX_SEMANTICS | windows.FILE_RENAME_IGNORE_READONLY_ATTRIBUTE)
	err := retrySharing(func() error { return posixRename(from, to, flags) })
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		flags &^= windows.FILE_RENAME_IGNORE_READONLY_ATTRIBUTE // before 1809
		err = retrySharing(func() error { return posixRename(from, to, flags) })
	}
	if err != nil && !isSharing(err) && !errors.Is(err, windows.ERROR_FILE_NOT_FOUND) && !errors.Is(err, windows.ERROR_PATH_NOT_FOUND) {
		err = retrySharing(func() error { return moveFileEx(from, to) })
	}
	if err != nil {
		return &os.LinkError{Op: "rename", Old: from, New: to, Err: err}
	}
	return nil
}

// fileRenameInfo is FILE_RENAME_INFO (winbase.h), with the Flags member of
// its union, as FileRenameInfoEx reads it.
type fileRenameInfo struct {
	Flags          uint32
	RootDirectory  windows.Handle
	FileNameLength uint32 // in bytes, without the final NUL
	FileName       [1]uint16
}

func posixRename(from, to string, flags uint32) error {
	from16, err := windows.UTF16PtrFromString(from)
	if err != nil {
		return err
	}
	to16, err := windows.UTF16FromString(to) // NUL-terminated
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(from16, windows.DELETE|windows.SYNCHRONIZE,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_OPEN_REPARSE_POINT|windows.FILE_FLAG_WRITE_THROUGH, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(h)

	size := unsafe.Offsetof(fileRenameInfo{}.FileName) + uintptr(len(to16))*2
	size = max(size, unsafe.Sizeof(fileRenameInfo{}))
	buf := make([]uint64, (size+7)/8) // aligned for the struct's handle
	info := (*fileRenameInfo)(unsafe.Pointer(&buf[0]))
	info.Flags = flags
	info.FileNameLength = uint32(len(to16)-1) * 2
	copy(unsafe.Slice(&info.FileName[0], len(to16)), to16)
	return windows.SetFileInformationByHandle(h, windows.FileRenameInfoEx, (*byte)(unsafe.Pointer(&buf[0])), uint32(size))
}

func moveFileEx(from, to string) error {
	from16, err := windows.UTF16PtrFromString(from)
	if err != nil {
		return err
	}
	to16, err := windows.UTF16PtrFromString(to)
	if err != nil {
		return err
	}
	return windows.MoveFileEx(from16, to16, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH)
}

// isSharing reports whether err is Windows refusing a rename because a
// file is open elsewhere in a way that does not allow it.
func isSharing(err error) bool {
	return errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_SHARING_VIOLATION)
}

// retrySharing runs op again while it fails with a sharing error, for up
// to half a second: the holder is usually a scan that ends soon.
func retrySharing(op func() error) error {
	deadline := time.Now().Add(500 * time.Millisecond)
	nap := time.Millisecond
	for {
		err := op()
		if err == nil || !isSharing(err) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(nap)
		nap = min(2*nap, 50*time.Millisecond)
	}
}

// SyncDir does nothing on Windows: a directory cannot be opened for a
// flush there, and Rename is write-through, so the rename it would make
// durable already is.
func SyncDir(dir string) error { return nil }

// OwnerToKeep returns -1, -1: Windows has no owner a process can give a
// file it writes (the new file's security descriptor is inherited from its
// directory).
func OwnerToKeep(fi os.FileInfo) (uid, gid int) { return -1, -1 }

// unsafeOffsetofFileName is where FileName starts in a fileRenameInfo
// (for a test of the layout).
func unsafeOffsetofFileName(info *fileRenameInfo) uintptr { return unsafe.Offsetof(info.FileName) }
