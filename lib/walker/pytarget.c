/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * A running Python process seen from outside (pytarget.h): the object
 * that holds _PyRuntime, the interpreter's version, and the frame layout
 * the in-kernel walker follows.
 *
 * Where the numbers come from.  The tables below hold offsetof() values
 * of CPython's own structures on x86-64 Linux, as printed by
 * tests/fixtures/walker-offsets.c compiled with -DPy_BUILD_CORE against
 * each interpreter's installed headers: pyenv 3.8.18, 3.9.18, 3.10.13,
 * 3.11.7, 3.12.1, 3.13.0 (include/python3.X and its internal/), and
 * Debian 12's /usr/include/python3.11 (3.11.2: the same numbers as
 * 3.11.7).  tests/t3501-walker-layouts.sh recompiles that probe against
 * every interpreter installed and compares, so a table that disagrees
 * with a header fails there.  CPython keeps these layouts within a minor
 * version (the structures are internal, but a patch release does not
 * move them); a different minor version is a different table, and a
 * minor version without one is refused by name.
 *
 * 3.13 and later publish the offsets themselves: _Py_DebugOffsets is
 * the first member of _PyRuntime (cookie "xdebugpy", then the
 * interpreter's PY_VERSION_HEX and free_threaded), read here from the
 * target and used instead of a table.  Its layout is fixed within a
 * minor version only, so the words are located per minor version
 * (debug_layouts below: 3.13, 3.14, 3.15, each taken from that
 * version's own header); a minor version without an entry is refused.
 * t3501 compares what is read from a live interpreter with offsetof()
 * in its headers (pyenv's 3.13; Debian unstable's 3.14.10 and 3.15.2 in
 * the root .ci/setup.d/unstable-root.sh makes).
 *
 * What 3.14 and 3.15 change for the walker (their
 * pycore_interpframe_structs.h and pycore_stackref.h):
 *   - f_executable, still the frame's first word, is a tagged
 *     _PyStackRef: its low 2 bits (Py_TAG_BITS, 3 in the GIL build) are
 *     a tag, cleared for the code object (layout.code_tag_bits = 3, a
 *     mask; 0 before 3.14);
 *   - the owner enum gains FRAME_OWNED_BY_INTERPRETER = 3, the owner of
 *     the frame _PyEval_EvalFrameDefault pushes below its first one (the
 *     shim 3.12 and 3.13 mark with CSTACK = 3): layout.owner_interpreter;
 *     3.14's CSTACK moves to 4, and 3.15 removes it (owner_cstack =
 *     NO_FIELD there).  Frames of either owner are skipped, as CPython's
 *     _PyFrame_IsIncomplete() does (owner >= INTERPRETER);
 *   - the thread list is still interpreters.head -> threads.head ->
 *     next, each PyThreadState with current_frame and thread_id (their
 *     offsets move in 3.15);
 *   - the code object keeps co_code_adaptive, and instr_ptr points into
 *     it in the GIL build (the free-threaded build's per-thread bytecode,
 *     co_tlbc, is one reason that build stays refused); the line table
 *     keeps 3.11's location-table format.
 */
#include "compat.h"
#include "walker/pytarget.h"
#include "elfinfo.h"
#include "strbuf.h"
#include "alloc.h"

#include <ctype.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/uio.h>
#include <unistd.h>

#define NO WALKER_NO_FIELD

/*
 * The frame layouts of 3.8-3.12 (walker_abi.h describes each field).
 * lasti_units: bytes per unit of f_lasti (1 on 3.8/3.9, 2 on 3.10 where
 * it counts 2-byte code units; 0 for IFRAME layouts, which have no
 * f_lasti).  frame_read_size: from the frame's start to the end of the
 * last field the walker reads, rounded up to 8.
 */
static const struct {
	unsigned minor;
	struct walker_layout l;
} layouts[] = {
	{ 8, { .frame_kind = WALKER_FRAMEOBJ, .tstate_kind = WALKER_TS_DIRECT,
	       .runtime_interp_head = 32, .interp_tstate_head = 8,
	       .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24,
	       .cframe_current_frame = NO, .frame_code = 32, .frame_back = 24,
	       .frame_instr = 104, .frame_is_entry = NO, .frame_owner = NO,
	       .frame_read_size = 112, .owner_cstack = NO,
	       .owner_interpreter = NO, .code_adaptive = NO,
	       .code_firstlineno = 40, .lasti_units = 1, .code_tag_bits = 0 } },
	{ 9, { .frame_kind = WALKER_FRAMEOBJ, .tstate_kind = WALKER_TS_DIRECT,
	       .runtime_interp_head = 32, .interp_tstate_head = 8,
	       .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24,
	       .cframe_current_frame = NO, .frame_code = 32, .frame_back = 24,
	       .frame_instr = 104, .frame_is_entry = NO, .frame_owner = NO,
	       .frame_read_size = 112, .owner_cstack = NO,
	       .owner_interpreter = NO, .code_adaptive = NO,
	       .code_firstlineno = 40, .lasti_units = 1, .code_tag_bits = 0 } },
	{ 10, { .frame_kind = WALKER_FRAMEOBJ, .tstate_kind = WALKER_TS_DIRECT,
	       .runtime_interp_head = 32, .interp_tstate_head = 8,
	       .tstate_next = 8, .tstate_thread_id = 176, .tstate_frame = 24,
	       .cframe_current_frame = NO, .frame_code = 32, .frame_back = 24,
	       .frame_instr = 96, .frame_is_entry = NO, .frame_owner = NO,
	       .frame_read_size = 104, .owner_cstack = NO,
	       .owner_interpreter = NO, .code_adaptive = NO,
	       .code_firstlineno = 40, .lasti_units = 2, .code_tag_bits = 0 } },
	{ 11, { .frame_kind = WALKER_IFRAME, .tstate_kind = WALKER_TS_CFRAME,
	       .runtime_interp_head = 40, .interp_tstate_head = 16,
	       .tstate_next = 8, .tstate_thread_id = 152, .tstate_frame = 56,
	       .cframe_current_frame = 8, .frame_code = 32, .frame_back = 48,
	       .frame_instr = 56, .frame_is_entry = 68, .frame_owner = NO,
	       .frame_read_size = 72, .owner_cstack = NO,
	       .owner_interpreter = NO, .code_adaptive = 184,
	       .code_firstlineno = 72, .lasti_units = 0, .code_tag_bits = 0 } },
	{ 12, { .frame_kind = WALKER_IFRAME, .tstate_kind = WALKER_TS_CFRAME,
	       .runtime_interp_head = 40, .interp_tstate_head = 72,
	       .tstate_next = 8, .tstate_thread_id = 136, .tstate_frame = 56,
	       .cframe_current_frame = 0, .frame_code = 0, .frame_back = 8,
	       .frame_instr = 56, .frame_is_entry = NO, .frame_owner = 70,
	       .frame_read_size = 72, .owner_cstack = 3,
	       .owner_interpreter = NO, .code_adaptive = 192,
	       .code_firstlineno = 68, .lasti_units = 0, .code_tag_bits = 0 } },
};

/*
 * Code objects, bytes and str per version, from the same headers.  The
 * rows of 3.13, 3.14 and 3.15 fill what their _Py_DebugOffsets lack (the
 * compact str size and the state bits); the rest of each is checked
 * against the debug offsets read from a live interpreter by t3501.
 */
static const struct {
	unsigned minor;
	struct pytarget_code c;
} codes[] = {
	{ 8, { 104, 112, NO, 120, 40, 48, NO, 16, 32, 16, 32, 48, 72, 2, 5, 6 } },
	{ 9, { 104, 112, NO, 120, 40, 48, NO, 16, 32, 16, 32, 48, 72, 2, 5, 6 } },
	{ 10, { 104, 112, NO, 120, 40, 48, NO, 16, 32, 16, 32, 48, 72, 2, 5, 6 } },
	{ 11, { 112, 120, 128, 136, 72, NO, 184, 16, 32, 16, 32, 48, 72, 2, 5, 6 } },
	{ 12, { 112, 120, 128, 136, 68, NO, 192, 16, 32, 16, 32, 40, 56, 2, 5, 6 } },
	{ 13, { 112, 120, 128, 136, 68, NO, 200, 16, 32, 16, 32, 40, 56, 2, 5, 6 } },
	{ 14, { 112, 120, 128, 136, 68, NO, 208, 16, 32, 16, 32, 40, 56, 2, 5, 6 } },
	{ 15, { 112, 120, 128, 136, 68, NO, 208, 16, 32, 16, 32, 40, 56, 2, 5, 6 } },
};

/*
 * Other objects per version (pytarget.h's struct pytarget_obj), for
 * pyobj.c: probe `objects` prints the checked ones.  Not in any installed
 * header, checked live by t3501 instead: 3.8-3.10's PyDictKeysObject
 * (Objects/dict-common.h: dk_refcnt, dk_size, dk_lookup, dk_usable,
 * dk_nentries, dk_indices; entries of 24 bytes), 3.8/3.9's md_dict
 * (Objects/moduleobject.c: the first field after the header),
 * staticmethod's and classmethod's callable (the first field after the
 * header) and property's fget, fset, fdel (Objects/descrobject.c: the
 * first three fields after the header).  The managed dict's place before
 * an object (3.11+) is what the headers' own inline functions give.
 * 3.14 and 3.15 (Debian unstable's 3.14.10 and 3.15.2 -dev headers, as
 * t3501 compiles them): 3.13's except the tuple's items, after the hash
 * 3.14 caches in the tuple (ob_hash), sys.modules' place in the
 * interpreter, and on 3.15 the heap type's cached keys.  Without a row a
 * version's objects are not read: no Python thread names (pythreads.c).
 */
static const struct {
	unsigned minor;
	struct pytarget_obj o;
} obj_tables[] = {
	{ 8, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 872, .func_code = 16, .func_qualname = 104,
	       .co_consts = 56, .co_flags = 36, .co_newlocals = 2,
	       .tuple_item = 24, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = 8, .dk_log2_size = NO,
	       .dk_log2_index_bytes = NO, .dk_kind = NO, .dk_nentries = 32,
	       .dk_indices = 40, .dk_entry_size = 24,
	       .dk_unicode_entry_size = NO, .dk_general = NO,
	       .values_values = NO, .values_valid = NO, .md_dict = 16,
	       .interp_modules = 56, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 0, .long_shift = 30,
	       .managed_dict_flag = 0, .inline_values_flag = 0,
	       .managed_dict_before = NO, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_OFFSET } },
	{ 9, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 864, .func_code = 16, .func_qualname = 104,
	       .co_consts = 56, .co_flags = 36, .co_newlocals = 2,
	       .tuple_item = 24, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = 8, .dk_log2_size = NO,
	       .dk_log2_index_bytes = NO, .dk_kind = NO, .dk_nentries = 32,
	       .dk_indices = 40, .dk_entry_size = 24,
	       .dk_unicode_entry_size = NO, .dk_general = NO,
	       .values_values = NO, .values_valid = NO, .md_dict = 16,
	       .interp_modules = 856, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 0, .long_shift = 30,
	       .managed_dict_flag = 0, .inline_values_flag = 0,
	       .managed_dict_before = NO, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_OFFSET } },
	{ 10, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 872, .func_code = 48, .func_qualname = 40,
	       .co_consts = 56, .co_flags = 36, .co_newlocals = 2,
	       .tuple_item = 24, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = 8, .dk_log2_size = NO,
	       .dk_log2_index_bytes = NO, .dk_kind = NO, .dk_nentries = 32,
	       .dk_indices = 40, .dk_entry_size = 24,
	       .dk_unicode_entry_size = NO, .dk_general = NO,
	       .values_values = NO, .values_valid = NO, .md_dict = 16,
	       .interp_modules = 856, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 0, .long_shift = 30,
	       .managed_dict_flag = 0, .inline_values_flag = 0,
	       .managed_dict_before = NO, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_OFFSET } },
	{ 11, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 872, .func_code = 48, .func_qualname = 40,
	       .co_consts = 24, .co_flags = 48, .co_newlocals = 2,
	       .tuple_item = 24, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = NO, .dk_log2_size = 8,
	       .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
	       .dk_indices = 32, .dk_entry_size = 24,
	       .dk_unicode_entry_size = 16, .dk_general = 0,
	       .values_values = 0, .values_valid = NO, .md_dict = 16,
	       .interp_modules = 888, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 0, .long_shift = 30,
	       .managed_dict_flag = 16, .inline_values_flag = 0,
	       .managed_dict_before = 24, .managed_values_before = 32,
	       .inst_dict = PYTARGET_DICT_MANAGED_311 } },
	{ 12, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 880, .func_code = 48, .func_qualname = 40,
	       .co_consts = 24, .co_flags = 48, .co_newlocals = 2,
	       .tuple_item = 24, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = NO, .dk_log2_size = 8,
	       .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
	       .dk_indices = 32, .dk_entry_size = 24,
	       .dk_unicode_entry_size = 16, .dk_general = 0,
	       .values_values = 0, .values_valid = NO, .md_dict = 16,
	       .interp_modules = 944, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 1, .long_shift = 30,
	       .managed_dict_flag = 16, .inline_values_flag = 0,
	       .managed_dict_before = 24, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_MANAGED_312 } },
	{ 13, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 880, .func_code = 48, .func_qualname = 40,
	       .co_consts = 24, .co_flags = 48, .co_newlocals = 2,
	       .tuple_item = 24, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = NO, .dk_log2_size = 8,
	       .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
	       .dk_indices = 32, .dk_entry_size = 24,
	       .dk_unicode_entry_size = 16, .dk_general = 0,
	       .values_values = 8, .values_valid = 3, .md_dict = 16,
	       .interp_modules = 7656, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 1, .long_shift = 30,
	       .managed_dict_flag = 16, .inline_values_flag = 4,
	       .managed_dict_before = 24, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_MANAGED_313 } },
	{ 14, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 880, .func_code = 48, .func_qualname = 40,
	       .co_consts = 24, .co_flags = 48, .co_newlocals = 2,
	       .tuple_item = 32, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = NO, .dk_log2_size = 8,
	       .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
	       .dk_indices = 32, .dk_entry_size = 24,
	       .dk_unicode_entry_size = 16, .dk_general = 0,
	       .values_values = 8, .values_valid = 3, .md_dict = 16,
	       .interp_modules = 7688, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 1, .long_shift = 30,
	       .managed_dict_flag = 16, .inline_values_flag = 4,
	       .managed_dict_before = 24, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_MANAGED_313 } },
	{ 15, { .ob_type = 8, .var_size = 16, .tp_name = 24, .tp_basicsize = 32,
	       .tp_flags = 168, .tp_dict = 264, .tp_dictoffset = 288,
	       .ht_cached_keys = 888, .func_code = 48, .func_qualname = 40,
	       .co_consts = 24, .co_flags = 48, .co_newlocals = 2,
	       .tuple_item = 32, .dict_used = 16, .dict_keys = 32,
	       .dict_values = 40, .dk_size = NO, .dk_log2_size = 8,
	       .dk_log2_index_bytes = 9, .dk_kind = 10, .dk_nentries = 24,
	       .dk_indices = 32, .dk_entry_size = 24,
	       .dk_unicode_entry_size = 16, .dk_general = 0,
	       .values_values = 8, .values_valid = 3, .md_dict = 16,
	       .interp_modules = 7592, .sm_callable = 16, .prop_get = 16,
	       .long_digit = 24, .long_lv_tag = 1, .long_shift = 30,
	       .managed_dict_flag = 16, .inline_values_flag = 4,
	       .managed_dict_before = 24, .managed_values_before = NO,
	       .inst_dict = PYTARGET_DICT_MANAGED_313 } },
};

const struct pytarget_obj *pytarget_table_obj(unsigned major, unsigned minor)
{
	size_t i;

	if (major != 3)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(obj_tables); i++)
		if (obj_tables[i].minor == minor)
			return &obj_tables[i].o;
	return NULL;
}

const struct walker_layout *pytarget_table_layout(unsigned major,
						  unsigned minor)
{
	size_t i;

	if (major != 3)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(layouts); i++)
		if (layouts[i].minor == minor)
			return &layouts[i].l;
	return NULL;
}

const struct pytarget_code *pytarget_table_code(unsigned major,
						unsigned minor)
{
	size_t i;

	if (major != 3)
		return NULL;
	for (i = 0; i < ARRAY_SIZE(codes); i++)
		if (codes[i].minor == minor)
			return &codes[i].c;
	return NULL;
}

/*
 * _Py_DebugOffsets as an array of 64-bit words: where each value the
 * walker needs sits, per minor version (the word index is offsetof()
 * in that version's header divided by 8).  3.13.0's
 * Include/internal/pycore_runtime.h: cookie (word 0), version (1),
 * free_threaded (2), runtime_state {size, finalizing, interpreters_head}
 * (3-5), interpreter_state {size, id, next, threads_head, ...13 words}
 * (6-18), thread_state {size, prev, next, interp, current_frame,
 * thread_id, native_thread_id, datastack_chunk, status} (19-27),
 * interpreter_frame {size, previous, executable, instr_ptr, localsplus,
 * owner} (28-33), code_object {size, filename, name, qualname,
 * linetable, firstlineno, argcount, localsplusnames, localspluskinds,
 * co_code_adaptive} (34-43), pyobject (44-45), type_object (46-49),
 * tuple (50-52), list (53-55), dict (56-58), float (59-60), long
 * (61-63), bytes {size, ob_size, ob_sval} (64-66), unicode {size, state,
 * length, asciiobject_size} (67-70), gc (71-72).
 *
 * 3.14.10's Include/internal/pycore_debug_offsets.h (95 words):
 * interpreter_state gains threads_main, code_object_generation and
 * tlbc_generation (6-21), so thread_state is 22-30; interpreter_frame
 * gains stackpointer and tlbc_index (31-38); code_object gains co_tlbc
 * (39-49); a set_object (62-65) comes before dict; bytes 74-76, unicode
 * 77-80; then gc, gen_object, llist_node and debugger_support.
 *
 * 3.15.2's (111 words): thread_state gains base_frame,
 * last_profiled_frame, last_profiled_frame_seq before thread_id and
 * holds_gil, gil_requested, current_exception, exc_state after status
 * (22-37, thread_id 30); an err_stackitem word (38); interpreter_frame
 * 39-46, code_object 47-57; type_object gains two words and a
 * heap_type_object follows; bytes 86-88, unicode 89-93
 * (compactunicodeobject_size added); gc gains three words.
 *
 * owner_cstack, owner_interpreter: the owner values of frames that are
 * not Python functions (walker_abi.h); code_tag_bits: the mask of
 * f_executable's tag.
 */
struct debug_words {
	unsigned minor, nwords;
	unsigned interpreters_head, threads_head, ts_next, ts_current_frame,
		ts_thread_id, fr_previous, fr_executable, fr_instr_ptr,
		fr_owner, co_filename, co_name, co_qualname, co_linetable,
		co_firstlineno, co_code_adaptive, bytes_ob_size, bytes_ob_sval,
		str_state, str_length, str_ascii_size;
	unsigned owner_cstack, owner_interpreter, code_tag_bits;
};

static const struct debug_words debug_layouts[] = {
	{ 13, 73, 5, 9, 21, 23, 24, 29, 30, 31, 33, 35, 36, 37, 38, 39, 43,
	  65, 66, 68, 69, 70, 3, NO, 0 },
	{ 14, 95, 5, 9, 24, 26, 27, 32, 33, 34, 36, 40, 41, 42, 43, 44, 48,
	  75, 76, 78, 79, 80, 4, 3, 3 },
	{ 15, 111, 5, 9, 24, 26, 30, 40, 41, 42, 44, 48, 49, 50, 51, 52, 56,
	  87, 88, 90, 91, 92, NO, 3, 3 },
};

#define DEBUG_MAX_WORDS 128

const char *pytarget_status_name(enum pytarget_status st)
{
	switch (st) {
	case PYTARGET_OK: return "ok";
	case PYTARGET_GONE: return "gone";
	case PYTARGET_NOT_PYTHON: return "not-python";
	case PYTARGET_NOT_YET: return "not-yet";
	case PYTARGET_UNSUPPORTED: return "unsupported";
	case PYTARGET_NO_ACCESS: return "no-access";
	case PYTARGET_ERROR: break;
	}
	return "error";
}

int pytarget_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	ssize_t n;

	if (!len)
		return 0;
	if (!addr || addr > UINT64_MAX - len) {
		errno = EFAULT;
		return -1;
	}
	n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EFAULT;	/* a partial read: part not mapped */
		return -1;
	}
	return 0;
}

static enum pytarget_status fail(struct pytarget *t, enum pytarget_status st,
				 const char *fmt, ...) PPR_PRINTF(3, 4);
static enum pytarget_status fail(struct pytarget *t, enum pytarget_status st,
				 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->why, sizeof(t->why), fmt, ap);
	va_end(ap);
	return st;
}

/* The status for a failed read of the target (errno set by the read). */
static enum pytarget_status read_fail(struct pytarget *t, const char *what)
{
	int e = errno;

	if (e == ESRCH)
		return fail(t, PYTARGET_GONE, "process %d has exited",
			    (int)t->pid);
	if (e == EPERM || e == EACCES)
		return fail(t, PYTARGET_NO_ACCESS, "cannot read process %d's "
			    "memory (%s): ptrace access is refused (%s)",
			    (int)t->pid, what, strerror(e));
	return fail(t, PYTARGET_ERROR, "cannot read process %d's %s: %s",
		    (int)t->pid, what, strerror(e));
}

/* A mapped object: its path and the start of its mapping at offset 0. */
struct obj {
	char *path;
	uint64_t start;
	int have_start;
};

/* "libpython3.11.so.1.0", "python3.9", "libpython3.13t.so": X.Y and 't'. */
static int name_version(const char *path, unsigned *maj, unsigned *min,
			int *ft)
{
	const char *b = strrchr(path, '/');
	const char *p;
	char *end;
	unsigned long a, c;

	b = b ? b + 1 : path;
	if (!strncmp(b, "lib", 3))
		b += 3;
	if (strncmp(b, "python", 6))
		return -1;
	p = b + 6;
	if (*p < '0' || *p > '9')
		return -1;
	a = strtoul(p, &end, 10);
	if (*end != '.' || end[1] < '0' || end[1] > '9')
		return -1;
	c = strtoul(end + 1, &end, 10);
	*maj = (unsigned)a;
	*min = (unsigned)c;
	*ft = *end == 't';
	return 0;
}

/*
 * Read /proc/PID/maps: the executable's path and every mapped
 * libpython; each with the start of its mapping at file offset 0.
 */
static enum pytarget_status list_objects(struct pytarget *t, struct obj *objs,
					 size_t max, size_t *nr)
{
	char p[64], exe[PATH_MAX];
	struct strbuf sb;
	char *line, *save = NULL;
	ssize_t n;
	size_t i;

	*nr = 0;
	snprintf(p, sizeof(p), "/proc/%d/exe", (int)t->pid);
	n = readlink(p, exe, sizeof(exe) - 1);
	if (n < 0) {
		if (errno == ENOENT || errno == ESRCH)
			return fail(t, PYTARGET_GONE, "process %d does not "
				    "exist (it has exited)", (int)t->pid);
		if (errno == EACCES || errno == EPERM)
			return fail(t, PYTARGET_NO_ACCESS, "cannot read "
				    "process %d's executable: ptrace access is "
				    "refused", (int)t->pid);
		return fail(t, PYTARGET_ERROR, "cannot read %s: %s", p,
			    strerror(errno));
	}
	exe[n] = '\0';
	objs[0].path = xstrdup(exe);
	objs[0].have_start = 0;
	*nr = 1;

	strbuf_init(&sb, 8192);
	snprintf(p, sizeof(p), "/proc/%d/maps", (int)t->pid);
	if (strbuf_read_file(&sb, p, 64 << 20) < 0) {
		int e = errno;

		strbuf_release(&sb);
		if (e == ENOENT || e == ESRCH)
			return fail(t, PYTARGET_GONE, "process %d has exited",
				    (int)t->pid);
		return fail(t, e == EACCES ? PYTARGET_NO_ACCESS :
			    PYTARGET_ERROR, "cannot read %s: %s", p,
			    strerror(e));
	}
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		unsigned long long start, end, off;
		char perms[8];
		int pos = 0;
		const char *path, *base;
		unsigned a, b;
		int ft;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s%n", &start, &end,
			   perms, &off, &pos) < 4 || !pos)
			continue;
		path = line + pos;
		while (*path == ' ')
			path++;
		if (*path != '/')
			continue;
		base = strrchr(path, '/') + 1;
		for (i = 0; i < *nr; i++)
			if (!strcmp(objs[i].path, path))
				break;
		if (i == *nr) {
			if (strncmp(base, "libpython", 9) ||
			    name_version(path, &a, &b, &ft) || *nr == max)
				continue;
			objs[i].path = xstrdup(path);
			objs[i].have_start = 0;
			(*nr)++;
		}
		if (off == 0 && !objs[i].have_start) {
			objs[i].start = start;
			objs[i].have_start = 1;
		}
	}
	strbuf_release(&sb);
	return PYTARGET_OK;
}

/*
 * "3.9.18" from .rodata: the first string "X.Y.<digits>[abrc+...]" that
 * stands alone or ends a longer one after a '-' or '/': the linker
 * merges PY_VERSION into the tail of a path such as
 * "/root/.pyenv/versions/3.9.18" (pyenv's 3.8-3.10), so it is not always
 * a string of its own.  Only the shown version comes from here: the
 * layout is chosen by X.Y, from the library's name.
 */
static int rodata_version(const struct elf_syms *es, unsigned maj,
			  unsigned min, char *out, size_t outlen)
{
	char pre[16];
	size_t pl, i;

	pl = (size_t)snprintf(pre, sizeof(pre), "%u.%u.", maj, min);
	for (i = 0; es->rodata && i + pl < es->rodata_len; i++) {
		const char *s = (const char *)es->rodata + i;
		size_t k = pl;

		if ((i && es->rodata[i - 1] && es->rodata[i - 1] != '-' &&
		     es->rodata[i - 1] != '/') ||
		    memcmp(s, pre, pl))
			continue;
		while (i + k < es->rodata_len && s[k] >= '0' && s[k] <= '9')
			k++;
		if (k == pl || i + k >= es->rodata_len)
			continue;
		/* then the end, or a release tag, or "+" */
		while (i + k < es->rodata_len && k < 24 &&
		       (isalnum((unsigned char)s[k]) || s[k] == '+'))
			k++;
		if (i + k >= es->rodata_len || s[k] || k >= outlen)
			continue;
		memcpy(out, s, k);
		out[k] = '\0';
		return 0;
	}
	return -1;
}

/* PY_VERSION_HEX from "3.9.18", "3.13.0rc2". */
static unsigned hex_of(const char *v)
{
	unsigned a = 0, b = 0, c = 0, serial = 0, level = 0xf;
	const char *p = v;
	char *end;

	a = (unsigned)strtoul(p, &end, 10);
	if (*end == '.')
		b = (unsigned)strtoul(end + 1, &end, 10);
	if (*end == '.')
		c = (unsigned)strtoul(end + 1, &end, 10);
	if (*end == 'a' || *end == 'b') {
		level = *end == 'a' ? 0xa : 0xb;
		serial = (unsigned)strtoul(end + 1, &end, 10);
	} else if (!strncmp(end, "rc", 2)) {
		level = 0xc;
		serial = (unsigned)strtoul(end + 2, &end, 10);
	}
	return (a & 0xff) << 24 | (b & 0xff) << 16 | (c & 0xff) << 8 |
		level << 4 | (serial & 0xf);
}

static void version_of_hex(unsigned h, char *out, size_t len)
{
	unsigned level = h >> 4 & 0xf, serial = h & 0xf;

	snprintf(out, len, "%u.%u.%u%s", h >> 24, h >> 16 & 0xff,
		 h >> 8 & 0xff, level == 0xa ? "a" : level == 0xb ? "b" :
		 level == 0xc ? "rc" : "");
	if (level != 0xf)
		snprintf(out + strlen(out), len - strlen(out), "%u", serial);
}

/* 3.13+: the layout and code offsets from _Py_DebugOffsets. */
static enum pytarget_status from_debug_offsets(struct pytarget *t,
					       unsigned minor)
{
	const struct debug_words *d = NULL;
	const struct pytarget_code *tc = pytarget_table_code(3, minor);
	uint64_t w[DEBUG_MAX_WORDS];
	struct walker_layout *l = &t->layout;
	struct pytarget_code *c = &t->code;
	uint64_t maxoff;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(debug_layouts); i++)
		if (debug_layouts[i].minor == minor)
			d = &debug_layouts[i];
	if (!d || !tc)
		return fail(t, PYTARGET_UNSUPPORTED, "python %s is not "
			    "supported: the walker knows CPython 3.8 to 3.15 "
			    "(the _Py_DebugOffsets layout of 3.%u is not "
			    "checked yet)", t->version, minor);
	if (pytarget_read(t->pid, t->runtime, w, d->nwords * 8))
		return read_fail(t, "_Py_DebugOffsets");
	if (memcmp(&w[0], "xdebugpy", 8))
		return fail(t, PYTARGET_ERROR, "python %s: _PyRuntime at "
			    "0x%" PRIx64 " does not start with the "
			    "_Py_DebugOffsets cookie \"xdebugpy\"", t->version,
			    t->runtime);
	if ((w[1] >> 16) != (t->hexversion >> 16))
		return fail(t, PYTARGET_ERROR, "python %s: _Py_DebugOffsets "
			    "says version 0x%08" PRIx64 ", not 3.%u",
			    t->version, w[1], minor);
	t->hexversion = (unsigned)w[1];
	version_of_hex(t->hexversion, t->version, sizeof(t->version));
	if (w[2]) {
		t->free_threaded = 1;
		return fail(t, PYTARGET_UNSUPPORTED, "free-threaded CPython "
			    "%s is not supported (its _Py_DebugOffsets say "
			    "free_threaded)", t->version);
	}
	/* every offset must be a sane one: they index small structures */
	maxoff = 1 << 20;
#define W(idx) (w[idx] < maxoff ? (__u32)w[idx] : NO)
	memset(l, 0, sizeof(*l));
	l->frame_kind = WALKER_IFRAME;
	l->tstate_kind = WALKER_TS_DIRECT;
	l->runtime_interp_head = W(d->interpreters_head);
	l->interp_tstate_head = W(d->threads_head);
	l->tstate_next = W(d->ts_next);
	l->tstate_thread_id = W(d->ts_thread_id);
	l->tstate_frame = W(d->ts_current_frame);
	l->cframe_current_frame = NO;
	l->frame_code = W(d->fr_executable);
	l->frame_back = W(d->fr_previous);
	l->frame_instr = W(d->fr_instr_ptr);
	l->frame_is_entry = NO;
	l->frame_owner = W(d->fr_owner);
	l->owner_cstack = d->owner_cstack;
	l->owner_interpreter = d->owner_interpreter;
	l->code_adaptive = W(d->co_code_adaptive);
	l->code_firstlineno = W(d->co_firstlineno);
	l->lasti_units = 0;
	l->code_tag_bits = d->code_tag_bits;
	*c = *tc;
	c->co_filename = W(d->co_filename);
	c->co_name = W(d->co_name);
	c->co_qualname = W(d->co_qualname);
	c->co_linetable = W(d->co_linetable);
	c->co_firstlineno = W(d->co_firstlineno);
	c->co_code_adaptive = W(d->co_code_adaptive);
	c->bytes_size = W(d->bytes_ob_size);
	c->bytes_sval = W(d->bytes_ob_sval);
	c->str_state = W(d->str_state);
	c->str_length = W(d->str_length);
	c->str_ascii_size = W(d->str_ascii_size);
	/* the compact header adds utf8_length and utf8 (two words) */
	if (c->str_ascii_size != NO)
		c->str_compact_size = c->str_ascii_size + 16;
#undef W
	{
		uint32_t m = 0;
		const __u32 need[] = { l->runtime_interp_head,
			l->interp_tstate_head, l->tstate_next,
			l->tstate_thread_id, l->tstate_frame, l->frame_code,
			l->frame_back, l->frame_instr, l->frame_owner,
			l->code_adaptive, l->code_firstlineno };

		for (i = 0; i < ARRAY_SIZE(need); i++)
			if (need[i] == NO)
				return fail(t, PYTARGET_ERROR, "python %s: "
					    "_Py_DebugOffsets holds an "
					    "offset out of range", t->version);
		m = l->frame_code + 8;
		if (l->frame_back + 8 > m)
			m = l->frame_back + 8;
		if (l->frame_instr + 8 > m)
			m = l->frame_instr + 8;
		if (l->frame_owner + 1 > m)
			m = l->frame_owner + 1;
		l->frame_read_size = (m + 7) / 8 * 8;
		if (l->frame_read_size > 256)
			return fail(t, PYTARGET_ERROR, "python %s: the frame "
				    "fields in _Py_DebugOffsets lie past 256 "
				    "bytes", t->version);
	}
	t->from_debug_offsets = 1;
	return PYTARGET_OK;
}

#define MAX_OBJS 8

/* t->obj from the version's table, or every field NO_FIELD. */
static void pytarget_fill_obj(struct pytarget *t, unsigned maj, unsigned min)
{
	const struct pytarget_obj *o = pytarget_table_obj(maj, min);

	if (o)
		t->obj = *o;
	else
		memset(&t->obj, 0xff, sizeof(t->obj));
}

/*
 * The window of a code object that holds the tag's three fields
 * (walker_layout.code_read), or 0 when one is missing or they lie
 * further apart than the walker reads at once: then the tag has no
 * file name or name (walker_code_tag() of the first line; never seen).
 */
static __u32 code_window(struct walker_layout *l)
{
	__u32 lo = l->code_firstlineno, hi = lo + 4;

	if (l->code_firstlineno == WALKER_NO_FIELD ||
	    l->code_filename == WALKER_NO_FIELD ||
	    l->code_name == WALKER_NO_FIELD)
		goto none;
	lo = lo < l->code_filename ? lo : l->code_filename;
	lo = lo < l->code_name ? lo : l->code_name;
	hi = hi > l->code_filename + 8 ? hi : l->code_filename + 8;
	hi = hi > l->code_name + 8 ? hi : l->code_name + 8;
	if (hi - lo <= WALKER_CODE_SPAN && lo <= 0xffff)
		return lo | (hi - lo) << 16;
none:
	/* the recorder's side (pycode_tag()) reads what the walker does */
	l->code_filename = l->code_name = 0;
	return 0;
}

enum pytarget_status pytarget_inspect(pid_t pid, struct pytarget *t)
{
	struct obj objs[MAX_OBJS];
	size_t nr = 0, i;
	enum pytarget_status st;
	struct elf_want want[3];
	struct elf_syms es;
	const char *holder = NULL, *pybase = NULL;
	unsigned maj = 0, min = 0;
	int ft = 0, have_ver = 0, is_python = 0;
	uint64_t bias = 0, head;
	char err[PPR_ERR_LEN], first_err[PPR_ERR_LEN] = "";
	const struct walker_layout *tl;

	memset(t, 0, sizeof(*t));
	t->pid = pid;
	if (pid <= 0)
		return fail(t, PYTARGET_GONE, "no process %d", (int)pid);
	st = list_objects(t, objs, MAX_OBJS, &nr);
	if (st != PYTARGET_OK)
		goto out;
	/* the object that defines _PyRuntime (3.7+) or is a Python 2/3 */
	for (i = 0; i < nr && !holder; i++) {
		char root[PATH_MAX + 32];
		unsigned a, b;
		int f;

		snprintf(root, sizeof(root), "/proc/%d/root%s", (int)pid,
			 objs[i].path);
		want[0].name = "_PyRuntime";
		want[1].name = "Py_Version";
		want[2].name = "Py_GetVersion";
		if (elf_find_symbols(root, want, 3, 1, &es, err, sizeof(err)) &&
		    elf_find_symbols(objs[i].path, want, 3, 1, &es, err,
				     sizeof(err))) {
			/* kept: "not a Python" would hide a failed read */
			if (!first_err[0])
				snprintf(first_err, sizeof(first_err), "%s",
					 err);
			continue;
		}
		if (!want[2].found && !want[0].found) {
			elf_syms_release(&es);
			continue;
		}
		is_python = 1;
		pybase = objs[i].path;
		if (!objs[i].have_start || !es.have_load) {
			elf_syms_release(&es);
			continue;
		}
		bias = objs[i].start - es.load_vaddr;
		if (!name_version(objs[i].path, &a, &b, &f)) {
			maj = a;
			min = b;
			ft = f;
			have_ver = 1;
		}
		/* Py_Version: an unsigned long (8 bytes) or a 4-byte int;
		   little-endian, so its low 4 bytes either way */
		if (want[1].found && (want[1].size == 4 ||
				      want[1].size == 8)) {
			uint32_t v;

			if (pytarget_read(pid, want[1].value + bias, &v, 4)) {
				st = read_fail(t, "Py_Version");
				elf_syms_release(&es);
				goto out;
			}
			t->hexversion = v;
			maj = v >> 24;
			min = v >> 16 & 0xff;
			version_of_hex(v, t->version, sizeof(t->version));
			have_ver = 1;
		} else if (have_ver && !rodata_version(&es, maj, min,
						       t->version,
						       sizeof(t->version))) {
			t->hexversion = hex_of(t->version);
		} else if (have_ver) {
			snprintf(t->version, sizeof(t->version), "%u.%u", maj,
				 min);
			t->hexversion = maj << 24 | min << 16;
		}
		if (want[0].found) {
			t->runtime = want[0].value + bias;
			holder = objs[i].path;
		}
		elf_syms_release(&es);
		if (!holder && have_ver)
			break;
	}
	if (!is_python && first_err[0]) {
		st = fail(t, PYTARGET_ERROR, "process %d (%s): cannot read "
			  "its symbols: %s", (int)pid, objs[0].path,
			  first_err);
		goto out;
	}
	if (!is_python) {
		st = fail(t, PYTARGET_NOT_PYTHON, "process %d (%s) is not a "
			  "Python: neither its executable nor a libpython "
			  "defines _PyRuntime or Py_GetVersion", (int)pid,
			  objs[0].path);
		goto out;
	}
	snprintf(t->path, sizeof(t->path), "%s", holder ? holder : pybase);
	if (!have_ver) {
		st = fail(t, PYTARGET_UNSUPPORTED, "process %d runs a Python "
			  "(%s) of unknown version: refused, not guessed",
			  (int)pid, t->path);
		goto out;
	}
	if (ft) {
		t->free_threaded = 1;
		st = fail(t, PYTARGET_UNSUPPORTED, "free-threaded CPython %s "
			  "(%s) is not supported", t->version, t->path);
		goto out;
	}
	if (maj != 3 || min < 8) {
		st = fail(t, PYTARGET_UNSUPPORTED, "python %s is not "
			  "supported: the walker reads CPython 3.8 to 3.15",
			  t->version);
		goto out;
	}
	if (!holder) {
		st = fail(t, PYTARGET_UNSUPPORTED, "python %s (%s) does not "
			  "export _PyRuntime: refused", t->version, t->path);
		goto out;
	}
	if ((tl = pytarget_table_layout(maj, min))) {
		t->layout = *tl;
		t->code = *pytarget_table_code(maj, min);
	} else if (min >= 13) {
		st = from_debug_offsets(t, min);
		if (st != PYTARGET_OK)
			goto out;
	} else {
		st = fail(t, PYTARGET_UNSUPPORTED, "python %s has no layout "
			  "table", t->version);
		goto out;
	}
	/* read into each frame's tag (walker_code_tag()) */
	t->layout.code_filename = t->code.co_filename;
	t->layout.code_name = t->code.co_name;
	/* PyASCIIObject: Py_ssize_t length, then Py_hash_t hash (3.3+) */
	t->layout.str_hash = t->code.str_length == WALKER_NO_FIELD ?
			     WALKER_NO_FIELD : t->code.str_length + 8;
	t->layout.code_read = code_window(&t->layout);
	pytarget_fill_obj(t, maj, min);
	/* initialised: the first interpreter is linked in */
	if (pytarget_read(pid, t->runtime + t->layout.runtime_interp_head,
			  &head, sizeof(head))) {
		st = read_fail(t, "_PyRuntime");
		goto out;
	}
	if (!head) {
		st = fail(t, PYTARGET_NOT_YET, "python %s in process %d has "
			  "not set up its interpreter yet", t->version,
			  (int)pid);
		goto out;
	}
	st = PYTARGET_OK;
out:
	for (i = 0; i < nr; i++)
		free(objs[i].path);
	return st;
}
