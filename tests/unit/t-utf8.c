/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Unit tests of lib/utf8: utf8_seq_len() and utf8_is_clean(), the test
 * every frame name passes before it is shown.
 */
#include "compat.h"
#include "utf8.h"
#include "tap.h"

#define CLEAN(s) utf8_is_clean((s), sizeof(s) - 1)

int main(void)
{
	TAP_OK(CLEAN(""), "the empty name");
	TAP_OK(CLEAN("py::Foo.bar:/src/app.py"), "ASCII");
	TAP_OK(CLEAN("caf\xc3\xa9 \xe4\xb8\xad \xf0\x9f\x90\x8d"),
	       "two-, three- and four-byte sequences");
	TAP_OK(CLEAN("nbsp\xc2\xa0"), "U+00A0, the first after the C1 range");
	TAP_OK(!CLEAN("pool.p\x08\xc3\xc3py"), "a backspace and a broken "
	       "sequence (the 3.13 perf_jit damage)");
	TAP_OK(!CLEAN("a\tb"), "a tab");
	TAP_OK(!CLEAN("a\nb"), "a newline (it would split a collapsed line)");
	TAP_OK(!CLEAN("a\x7f"), "DEL");
	TAP_OK(!CLEAN("a\xc2\x80"), "U+0080, a C1 control");
	TAP_OK(!CLEAN("a\xc2\x9f"), "U+009F, a C1 control");
	TAP_OK(!CLEAN("\x80"), "a lone continuation byte");
	TAP_OK(!CLEAN("a\xe4\xb8"), "a sequence cut at the end");
	TAP_OK(!CLEAN("\xc0\xaf"), "an overlong '/'");
	TAP_OK(!CLEAN("\xe0\x80\xaf"), "an overlong three-byte '/'");
	TAP_OK(!CLEAN("\xed\xa0\x80"), "a UTF-16 surrogate");
	TAP_OK(!CLEAN("\xf4\x90\x80\x80"), "beyond U+10FFFF");
	TAP_OK(!CLEAN("\xf8\x88\x80\x80\x80"), "a five-byte lead");
	TAP_OK(!utf8_is_clean("ab\0cd", 5), "a NUL inside the name");
	TAP_OK(utf8_is_clean("ab\xc3\xa9", 2), "only len bytes are looked at");
	TAP_INT(utf8_seq_len((const unsigned char *)"\xf0\x9f\x90\x8d", 3), 0,
		"a sequence longer than the bytes left");
	TAP_INT(utf8_seq_len((const unsigned char *)"\xe4\xb8\xad", 3), 3,
		"a three-byte sequence");
	return tap_done();
}
