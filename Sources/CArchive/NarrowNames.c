// NarrowNames: no member name is ever converted to a wide string in devicectl.
//
// libarchive 3.6's tar reader asks every regular member for its wide name (`archive_entry_pathname_w`) only to see
// whether it ends in '/' (an old tar's directory), and makes it with one glibc `mbrtowc` call a character: measured
// on 2026-12-03, a fifth of `devicectl list`'s reading thread (`__mbrtowc` and `__gconv_transform_utf8_internal`) and
// a fifth of restore's user time. Every caller of it in the libarchive code devicectl runs (the tar reader's
// trailing-'/' check and its Mac metadata check, off by default; 3.7's checks for a name already set) handles NULL,
// the answer when a name has no wide form, by looking at the narrow name instead: for a trailing '/' (one byte in
// UTF-8 and in ASCII, never part of another character) the same answer. devicectl itself never uses wide names.
//
// libarchive calls the function through its PLT, so this definition is the one those calls bind to when libarchive
// is loaded, wherever the executable exports it (ELF symbol interposition: the executable comes first in the global
// scope). The release binary does: the toolchain links a static Swift runtime with -export-dynamic (`make release`,
// what ships and what the bench measures). A debug build and the test binary export nothing and keep libarchive's
// own conversion, which in-process tests therefore exercise; NarrowNamesEndToEndTests checks the binding in the
// binary under test (the dynamic loader's log) and that both answer alike (with NarrowNamesTests).
#include "shim.h"

__attribute__((visibility("default"))) const wchar_t *archive_entry_pathname_w(struct archive_entry *entry) {
    (void)entry;
    return 0;
}
