// Lazy: libarchive loaded by the first call into it, not at start-up (see CSupportLazy.h).
//
// Loading libarchive brings its dependencies (libxml2 and ICU, nettle, lzma, zstd, lz4, bzip2, acl): measured on
// 2026-12-03, dropping it and SQLite from the start-up took `devicectl --version` from 8.4 to 5.0 ms and `status` of a
// small device from 12.0 to 7.7 ms (100 and 40 runs, perf stat), commands that never read or write an archive. Each
// function below has the prototype archive.h declares (the compiler checks it against the header) and forwards to
// libarchive's own. They are hidden: libarchive's calls to its own functions never come back through them.
#pragma GCC visibility push(hidden)
#include "shim.h"
#include "CSupportLazy.h"

static struct csupport_library archive = {{"libarchive.so.13", "libarchive.so"}, "libarchive13", 0};

CSUPPORT_LAZY(archive, mode_t, archive_entry_filetype, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY_VOID(archive, archive_entry_free, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, la_int64_t, archive_entry_gid, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, const char *, archive_entry_hardlink, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, time_t, archive_entry_mtime, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_entry_mtime_is_set, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, long, archive_entry_mtime_nsec, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, struct archive_entry *, archive_entry_new, (void), ())
CSUPPORT_LAZY(archive, const char *, archive_entry_pathname, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, mode_t, archive_entry_perm, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY_VOID(archive, archive_entry_set_filetype, (struct archive_entry * p0, unsigned int p1), (p0, p1))
CSUPPORT_LAZY_VOID(archive, archive_entry_set_pathname, (struct archive_entry * p0, const char * p1), (p0, p1))
CSUPPORT_LAZY(archive, la_int64_t, archive_entry_size, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_entry_size_is_set, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_entry_sparse_count, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, const char *, archive_entry_symlink, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, la_int64_t, archive_entry_uid, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_entry_xattr_next, (struct archive_entry * p0, const char ** p1, const void ** p2, size_t * p3), (p0, p1, p2, p3))
CSUPPORT_LAZY(archive, int, archive_entry_xattr_reset, (struct archive_entry * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_errno, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, const char *, archive_error_string, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, la_int64_t, archive_filter_bytes, (struct archive * p0, int p1), (p0, p1))
CSUPPORT_LAZY(archive, int, archive_filter_count, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, const char *, archive_filter_name, (struct archive * p0, int p1), (p0, p1))
CSUPPORT_LAZY(archive, const char *, archive_format_name, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_data_block, (struct archive * p0, const void ** p1, size_t * p2, la_int64_t * p3), (p0, p1, p2, p3))
CSUPPORT_LAZY(archive, int, archive_read_data_skip, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_free, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, struct archive *, archive_read_new, (void), ())
CSUPPORT_LAZY(archive, int, archive_read_next_header, (struct archive * p0, struct archive_entry ** p1), (p0, p1))
CSUPPORT_LAZY(archive, int, archive_read_open, (struct archive * p0, void * p1, archive_open_callback * p2, archive_read_callback * p3, archive_close_callback * p4), (p0, p1, p2, p3, p4))
CSUPPORT_LAZY(archive, int, archive_read_set_skip_callback, (struct archive * p0, archive_skip_callback * p1), (p0, p1))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_bzip2, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_compress, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_gzip, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_lz4, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_lzip, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_lzma, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_none, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_xz, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_filter_zstd, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_format_raw, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_read_support_format_tar, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_write_add_filter_gzip, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_write_add_filter_xz, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_write_close, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, la_ssize_t, archive_write_data, (struct archive * p0, const void * p1, size_t p2), (p0, p1, p2))
CSUPPORT_LAZY(archive, int, archive_write_fail, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_write_finish_entry, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_write_free, (struct archive * p0), (p0))
CSUPPORT_LAZY(archive, int, archive_write_header, (struct archive * p0, struct archive_entry * p1), (p0, p1))
CSUPPORT_LAZY(archive, struct archive *, archive_write_new, (void), ())
CSUPPORT_LAZY(archive, int, archive_write_open2, (struct archive * p0, void * p1, archive_open_callback * p2, archive_write_callback * p3, archive_close_callback * p4, archive_free_callback * p5), (p0, p1, p2, p3, p4, p5))
CSUPPORT_LAZY(archive, int, archive_write_set_bytes_in_last_block, (struct archive * p0, int p1), (p0, p1))
CSUPPORT_LAZY(archive, int, archive_write_set_bytes_per_block, (struct archive * p0, int p1), (p0, p1))
CSUPPORT_LAZY(archive, int, archive_write_set_filter_option, (struct archive * p0, const char * p1, const char * p2, const char * p3), (p0, p1, p2, p3))
CSUPPORT_LAZY(archive, int, archive_write_set_format_raw, (struct archive * p0), (p0))

#pragma GCC visibility pop
