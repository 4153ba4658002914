// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/doctor/debugpkg.c's parsers on text captured from Debian 12's
 * apt and dpkg (2025, python3.11 3.11.2-6+deb12u6 installed):
 * `apt-cache show python3.11-dbg` (two versions, their Build-Ids),
 * `apt-get -s install python3.11-dbg`, a refused `apt-get -s install
 * python3.11-dbg=3.11.2-6+deb12u8`, and `dpkg -S` lines.
 *
 * The build-ids: /usr/bin/python3.11 of python3.11-minimal
 * 3.11.2-6+deb12u6 (the one installed), +deb12u8 and +deb12u9 (from
 * `apt-get download`, `dpkg -x`, `readelf -n`).
 */
#include "compat.h"
#include "doctor/debugpkg.h"
#include "tap.h"

#define ID_U6 "571d98e01096d5c1c32420d229a6731a0a50d2a0"
#define ID_U8 "2dd439c6335b443668ce8099c87b26a093da08b0"
#define ID_U9 "c561f3aa7232f2bd6ac6d56bd475f1c154a00486"

/* LC_ALL=C apt-cache show python3.11-dbg */
static const char show[] =
	"Package: python3.11-dbg\n"
	"Source: python3.11\n"
	"Version: 3.11.2-6+deb12u9\n"
	"Installed-Size: 59030\n"
	"Maintainer: Matthias Klose <doko@debian.org>\n"
	"Architecture: amd64\n"
	"Depends: python3.11 (= 3.11.2-6+deb12u9), libpython3.11-dbg (= 3"
	".11.2-6+deb12u9), libc6 (>= 2.35), libexpat1 (>= 2.1~beta3), zli"
	"b1g (>= 1:1.2.0)\n"
	"Suggests: python3-gdbm-dbg, python3-tk-dbg\n"
	"Description: Debug Build of the Python Interpreter (version 3.11"
	")\n"
	"Description-md5: 22b68e0040d143a281ff5ec8704d6068\n"
	"Build-Ids: 00354fd4ac12d1b88b32cb6bd51b7d797159e0ee 08d7d3f08d9c"
	"a6549819dd699aeaa02660318370 09c2c41edd1e1bd058dc3c172bd07a78671"
	"2b654 0b9410a965e11a5c28f2dee146a06376f18a3d2d 0bdaeeab9994b3916"
	"8e0f7d0e6cc8e0164868534 10b95e5dc3f172ed1bf7b05cfe25ffaa434d4bf5"
	" 134ecfb1d32416f5049f9c01c89d66cdecb74b7d 13bcae057936156ef29638"
	"5aac6cf3dc3dc98098 190721328ad7eb53307d2188b8ef80a234bf117f 2586"
	"bd899b8d544543ed88a95a75158d1b3c3f9a 261fde9221d14d06a2709476bf3"
	"77986185b1ba9 2bc82f54ea86d54fd7e028d648fc85ba181414f4 35c3f2db1"
	"87e9c5c602cb5e0d0cb62f4d3c9d792 3b0c57af499c2c0dd75b480e3caa5a47"
	"992ea96c 3c2d0f63b5a3479559183ddb6157a2b5176ca4c7 3fa9388ce783af"
	"5e37fe5c2ea2aedb3393af6151 431bb8c5f587b139cdd2f04fa87f15b35c223"
	"190 4c89903219e9f188a9de4c8d80a2a7d36dd517e9 4e21d7a063ae5e4d818"
	"f13f6a6c25971a71d6815 5190478787f4e75fd237696cbfb60990a161188f 5"
	"54fedaab7c4204f3bacc0d584d4561e97b10a0e 5b0ad6c13c9ad2689288e4d8"
	"aa07c0c4e5b4aec8 5feac5c1ca373bd0f0e9da7c2efb70daec46ccd9 6fc234"
	"e8cd73ae0b14135e8894839d54053742be 6feb112dbf2d4f5f4edaa28a88bf0"
	"7509ab50dc7 754015e7dcb59f099971c07d3bdb749b3eb54ac6 7a39a897f1a"
	"42a5df2c3aa62e0e134b377f75d06 7d4b9b68a1a2038926dcd3e4377ce526d9"
	"a97721 84f53f7760db67c9d916ea06b5027ff0c4090ae3 8e1a1562b0ac1924"
	"a2b4cbd86a0512870c2c05fa 8eb4f68d6b8a04daf2a6476387effe69ec9f19c"
	"8 95ab9c8419b9eaa91cc2ff47de0ab897757da284 9851efd22c364195f1e38"
	"2b75850b983821cf67e b0edb3c0cee3478c78e771ed108d35488044d737 b18"
	"6345d28225b919e1d80db7fa485bfafaa3b7f b5386b3eeca62841668a29f8f9"
	"9941b02f253a0c c561f3aa7232f2bd6ac6d56bd475f1c154a00486 c9da16a1"
	"7b4f09b81e343c8aba9d856278ce6387 cf62acf932af5c901c4fd04a3d5a531"
	"ed1d74dc0 d3da1a4938eb2ef52ee67c67bf6939dc209a7dc9 da132ee0b9aee"
	"42e667dd433a37449b8edc865a6 db4bfa8ae5c90351f0745049545c50e6afe1"
	"bb6f dc7ea6fdad516ee27906e1c1fa87c48af65bc294 e243ff83c0d259ddf4"
	"465f925834a9e556a89040 e54de4dfe49bf2db723ec4e5d0af9ffaaecbb73f "
	"e8319bdb60e7536ec9a901f4f466d2ba504ab60f eabd99c3ffdae11887913ea"
	"7387d5b876ab293ae eadf388b274a753a7d69bf25fc06997123d83f0a f5bc9"
	"1f7962519b79e01231be3938becbe979988\n"
	"Multi-Arch: allowed\n"
	"Recommends: gdb\n"
	"Section: debug\n"
	"Priority: optional\n"
	"Filename: pool/updates/main/p/python3.11/python3.11-dbg_3.11.2-6"
	"+deb12u9_amd64.deb\n"
	"Size: 37048848\n"
	"SHA256: 56aa5491f887b76fe8d357e193a1f652696a50031b1b545b9db99778"
	"b3a77589\n"
	"\n"
	"Package: python3.11-dbg\n"
	"Source: python3.11\n"
	"Version: 3.11.2-6+deb12u8\n"
	"Installed-Size: 59008\n"
	"Maintainer: Matthias Klose <doko@debian.org>\n"
	"Architecture: amd64\n"
	"Depends: python3.11 (= 3.11.2-6+deb12u8), libpython3.11-dbg (= 3"
	".11.2-6+deb12u8), libc6 (>= 2.35), libexpat1 (>= 2.1~beta3), zli"
	"b1g (>= 1:1.2.0)\n"
	"Recommends: gdb\n"
	"Suggests: python3-gdbm-dbg, python3-tk-dbg\n"
	"Description: Debug Build of the Python Interpreter (version 3.11"
	")\n"
	"Description-md5: 22b68e0040d143a281ff5ec8704d6068\n"
	"Multi-Arch: allowed\n"
	"Build-Ids: 00354fd4ac12d1b88b32cb6bd51b7d797159e0ee 0b9410a965e1"
	"1a5c28f2dee146a06376f18a3d2d 0bdaeeab9994b39168e0f7d0e6cc8e01648"
	"68534 12dc9652e3f122509c80baca238360fdda2bbb54 190721328ad7eb533"
	"07d2188b8ef80a234bf117f 1b4c598404682be7ea2e45bdd823e387e6fdc4e5"
	" 2398694a5fedfc85a0090c0d7e3962f2ce9d2006 2586bd899b8d544543ed88"
	"a95a75158d1b3c3f9a 261fde9221d14d06a2709476bf377986185b1ba9 2bc8"
	"2f54ea86d54fd7e028d648fc85ba181414f4 2dd439c6335b443668ce8099c87"
	"b26a093da08b0 3b0c57af499c2c0dd75b480e3caa5a47992ea96c 3c2d0f63b"
	"5a3479559183ddb6157a2b5176ca4c7 3fa9388ce783af5e37fe5c2ea2aedb33"
	"93af6151 4178a18c5351856a6aa344cd37872bcd32bac70a 431bb8c5f587b1"
	"39cdd2f04fa87f15b35c223190 4c89903219e9f188a9de4c8d80a2a7d36dd51"
	"7e9 4e21d7a063ae5e4d818f13f6a6c25971a71d6815 5190478787f4e75fd23"
	"7696cbfb60990a161188f 554fedaab7c4204f3bacc0d584d4561e97b10a0e 5"
	"a59a1bb129d33d367afc4b50d95ded716ecb1ca 5b0ad6c13c9ad2689288e4d8"
	"aa07c0c4e5b4aec8 5feac5c1ca373bd0f0e9da7c2efb70daec46ccd9 6feb11"
	"2dbf2d4f5f4edaa28a88bf07509ab50dc7 754015e7dcb59f099971c07d3bdb7"
	"49b3eb54ac6 7a39a897f1a42a5df2c3aa62e0e134b377f75d06 7d4b9b68a1a"
	"2038926dcd3e4377ce526d9a97721 7e0675fd5efb759231df6e2ab1f51a7a9a"
	"638807 84f53f7760db67c9d916ea06b5027ff0c4090ae3 8824938e216afb76"
	"31b6d88d9afb60f4f3fe2f76 8eb4f68d6b8a04daf2a6476387effe69ec9f19c"
	"8 95ab9c8419b9eaa91cc2ff47de0ab897757da284 9851efd22c364195f1e38"
	"2b75850b983821cf67e 9fa511d0544f0c0984911c86bc02ed5fe5bd8a0a a6c"
	"4cd920a2d2c741e11b642f8fd5b9d14630526 a856a7a625532401ce17c1ec3f"
	"dcff924af1c0f7 b186345d28225b919e1d80db7fa485bfafaa3b7f b5386b3e"
	"eca62841668a29f8f99941b02f253a0c c9da16a17b4f09b81e343c8aba9d856"
	"278ce6387 ce4ed6108429157020edeee32d273f655524b2ff cf62acf932af5"
	"c901c4fd04a3d5a531ed1d74dc0 cf9bd4b1952c9d2b6b528c0face3adeeb3cc"
	"cc1a d3da1a4938eb2ef52ee67c67bf6939dc209a7dc9 db4bfa8ae5c90351f0"
	"745049545c50e6afe1bb6f e243ff83c0d259ddf4465f925834a9e556a89040 "
	"e8319bdb60e7536ec9a901f4f466d2ba504ab60f ea77eb7ba13bda081432477"
	"98c69857f992a29d9 eabd99c3ffdae11887913ea7387d5b876ab293ae f5bc9"
	"1f7962519b79e01231be3938becbe979988\n"
	"Tag: role::debug-symbols\n"
	"Section: debug\n"
	"Priority: optional\n"
	"Filename: pool/main/p/python3.11/python3.11-dbg_3.11.2-6+deb12u8"
	"_amd64.deb\n"
	"Size: 36995412\n"
	"MD5sum: 3eb1b692f4bc1672ecdecbb01759861a\n"
	"SHA256: 8b37edb84f7543934dccbbda8871f38e48dc43c29ca14c075936f059"
	"700ef69e\n"
	"\n";

/* LC_ALL=C apt-get -s install python3.11-dbg */
static const char sim[] =
	"Reading package lists...\n"
	"Building dependency tree...\n"
	"Reading state information...\n"
	"The following packages were automatically installed and are no l"
	"onger required:\n"
	"  libc++1-14 libc++abi1-14 libunwind-14\n"
	"Use 'apt autoremove' to remove them.\n"
	"The following additional packages will be installed:\n"
	"  libpython3.11 libpython3.11-dbg libpython3.11-dev libpython3.1"
	"1-minimal\n"
	"  libpython3.11-stdlib python3.11 python3.11-dev python3.11-mini"
	"mal\n"
	"  python3.11-venv\n"
	"Suggested packages:\n"
	"  python3.11-doc python3-gdbm-dbg python3-tk-dbg binfmt-support"
	"\n"
	"The following NEW packages will be installed:\n"
	"  libpython3.11-dbg python3.11-dbg\n"
	"The following packages will be upgraded:\n"
	"  libpython3.11 libpython3.11-dev libpython3.11-minimal libpytho"
	"n3.11-stdlib\n"
	"  python3.11 python3.11-dev python3.11-minimal python3.11-venv\n"
	"8 upgraded, 2 newly installed, 0 to remove and 120 not upgraded."
	"\n"
	"Inst python3.11-dev [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 Debian-"
	"Security:12/oldstable-security [amd64]) []\n"
	"Inst libpython3.11-dev [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 Debi"
	"an-Security:12/oldstable-security [amd64]) []\n"
	"Inst libpython3.11 [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 Debian-S"
	"ecurity:12/oldstable-security [amd64]) []\n"
	"Inst python3.11-venv [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 Debian"
	"-Security:12/oldstable-security [amd64]) []\n"
	"Inst python3.11 [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 Debian-Secu"
	"rity:12/oldstable-security [amd64]) []\n"
	"Inst libpython3.11-stdlib [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 D"
	"ebian-Security:12/oldstable-security [amd64]) []\n"
	"Inst python3.11-minimal [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 Deb"
	"ian-Security:12/oldstable-security [amd64]) []\n"
	"Inst libpython3.11-minimal [3.11.2-6+deb12u6] (3.11.2-6+deb12u9 "
	"Debian-Security:12/oldstable-security [amd64])\n"
	"Inst libpython3.11-dbg (3.11.2-6+deb12u9 Debian-Security:12/olds"
	"table-security [amd64])\n"
	"Inst python3.11-dbg (3.11.2-6+deb12u9 Debian-Security:12/oldstab"
	"le-security [amd64])\n"
	"Conf python3.11-dev (3.11.2-6+deb12u9 Debian-Security:12/oldstab"
	"le-security [amd64])\n"
	"Conf libpython3.11-dev (3.11.2-6+deb12u9 Debian-Security:12/olds"
	"table-security [amd64])\n"
	"Conf libpython3.11 (3.11.2-6+deb12u9 Debian-Security:12/oldstabl"
	"e-security [amd64])\n"
	"Conf python3.11-venv (3.11.2-6+deb12u9 Debian-Security:12/oldsta"
	"ble-security [amd64])\n"
	"Conf python3.11 (3.11.2-6+deb12u9 Debian-Security:12/oldstable-s"
	"ecurity [amd64])\n"
	"Conf libpython3.11-stdlib (3.11.2-6+deb12u9 Debian-Security:12/o"
	"ldstable-security [amd64])\n"
	"Conf python3.11-minimal (3.11.2-6+deb12u9 Debian-Security:12/old"
	"stable-security [amd64])\n"
	"Conf libpython3.11-minimal (3.11.2-6+deb12u9 Debian-Security:12/"
	"oldstable-security [amd64])\n"
	"Conf libpython3.11-dbg (3.11.2-6+deb12u9 Debian-Security:12/olds"
	"table-security [amd64])\n"
	"Conf python3.11-dbg (3.11.2-6+deb12u9 Debian-Security:12/oldstab"
	"le-security [amd64])\n";

/* LC_ALL=C apt-get -s install python3.11-dbg=3.11.2-6+deb12u8 (exit 100) */
static const char refuse_out[] =
	"Reading package lists...\n"
	"Building dependency tree...\n"
	"Reading state information...\n"
	"Some packages could not be installed. This may mean that you hav"
	"e\n"
	"requested an impossible situation or if you are using the unstab"
	"le\n"
	"distribution that some required packages have not yet been creat"
	"ed\n"
	"or been moved out of Incoming.\n"
	"The following information may help to resolve the situation:\n"
	"\n"
	"The following packages have unmet dependencies:\n"
	" python3.11-dbg : Depends: python3.11 (= 3.11.2-6+deb12u8) but 3"
	".11.2-6+deb12u9 is to be installed\n"
	"                  Depends: libpython3.11-dbg (= 3.11.2-6+deb12u8"
	") but 3.11.2-6+deb12u9 is to be installed\n";
static const char refuse_err[] =
	"E: Unable to correct problems, you have held broken packages.\n";

static void test_show(void)
{
	struct debugpkg_stanza st[4];
	size_t n;

	n = debugpkg_parse_show(show, ID_U6, st, 4);
	TAP_INT(n, 2, "apt-cache show: two versions");
	TAP_STR(st[0].package, "python3.11-dbg", "first stanza's package");
	TAP_STR(st[0].version, "3.11.2-6+deb12u9", "first stanza's version");
	TAP_STR(st[1].version, "3.11.2-6+deb12u8", "second stanza's version");
	TAP_OK(!st[0].lists && !st[1].lists,
	       "neither lists the installed interpreter's build-id");
	TAP_OK(st[0].has_ids && st[1].has_ids, "both have Build-Ids");

	n = debugpkg_parse_show(show, ID_U9, st, 4);
	TAP_OK(n == 2 && st[0].lists && !st[1].lists,
	       "+deb12u9 lists the +deb12u9 interpreter's build-id");
	n = debugpkg_parse_show(show, ID_U8, st, 4);
	TAP_OK(n == 2 && !st[0].lists && st[1].lists,
	       "+deb12u8 lists the +deb12u8 interpreter's build-id");

	/* a whole word only: the id without its last digit is no match */
	n = debugpkg_parse_show(show, "c561f3aa7232f2bd6ac6d56bd475f1c154a0048",
				st, 4);
	TAP_OK(n == 2 && !st[0].lists && !st[1].lists,
	       "a prefix of a listed build-id does not match");

	/* more stanzas than room: counted, the first ones kept */
	n = debugpkg_parse_show(show, ID_U8, st, 1);
	TAP_OK(n == 2 && !st[0].lists, "stanzas beyond max are counted");

	/* not captured: the field folded onto a continuation line */
	n = debugpkg_parse_show("Package: p-dbgsym\nVersion: 1\nBuild-Ids: "
				"aa\n " ID_U6 " bb\nDescription: x\n " ID_U8
				"\n\nPackage: q\nVersion: 2\n", ID_U6, st, 4);
	TAP_OK(n == 2 && st[0].lists && !st[1].lists &&
	       !strcmp(st[1].package, "q"),
	       "a Build-Ids continuation line counts, no stanza end needed");
	n = debugpkg_parse_show("Package: p-dbgsym\nVersion: 1\nBuild-Ids: "
				"aa\nDescription: x\n " ID_U8 "\n", ID_U8,
				st, 4);
	TAP_OK(n == 1 && !st[0].lists,
	       "another field's continuation line does not");
	/* libctf0-dbg 2.40-2 (Debian 12) has no Build-Ids field */
	n = debugpkg_parse_show("Package: libctf0-dbg\nVersion: 2.40-2\n"
				"Depends: libctf0 (= 2.40-2)\n", ID_U6, st, 4);
	TAP_OK(n == 1 && !st[0].lists && !st[0].has_ids,
	       "a stanza without Build-Ids says so");
	TAP_INT(debugpkg_parse_show("", ID_U6, st, 4), 0, "empty text");
}

static void test_sim(void)
{
	char from[128], to[128];

	TAP_OK(!debugpkg_parse_sim(sim, "python3.11-minimal", from,
				   sizeof(from), to, sizeof(to)) &&
	       !strcmp(from, "3.11.2-6+deb12u6") &&
	       !strcmp(to, "3.11.2-6+deb12u9"),
	       "the interpreter's package is upgraded from +deb12u6 to "
	       "+deb12u9");
	TAP_OK(!debugpkg_parse_sim(sim, "python3.11-minimal:amd64", from,
				   sizeof(from), to, sizeof(to)) &&
	       !strcmp(to, "3.11.2-6+deb12u9"), "an :arch suffix is ignored");
	TAP_OK(!debugpkg_parse_sim(sim, "python3.11-dbg", from, sizeof(from),
				   to, sizeof(to)) &&
	       !from[0] && !strcmp(to, "3.11.2-6+deb12u9"),
	       "the debug package is new at +deb12u9");
	TAP_OK(!debugpkg_parse_sim(sim, "libpython3.11-minimal", from,
				   sizeof(from), to, sizeof(to)) &&
	       !strcmp(from, "3.11.2-6+deb12u6"),
	       "a line without a trailing [] parses");
	TAP_OK(!debugpkg_parse_sim(sim, "python3.11", from, sizeof(from), to,
				   sizeof(to)) &&
	       !strcmp(to, "3.11.2-6+deb12u9"),
	       "python3.11 is its own line, not python3.11-dev's");
	TAP_INT(debugpkg_parse_sim(sim, "gdb", from, sizeof(from), to,
				   sizeof(to)), -1,
		"a package apt does not install has no line");
	TAP_INT(debugpkg_parse_sim(sim, "python3.11-d", from, sizeof(from), to,
				   sizeof(to)), -1, "no prefix match");
}

static void test_refusal(void)
{
	char why[256];

	debugpkg_parse_refusal(refuse_out, refuse_err, why, sizeof(why));
	TAP_STR(why, "python3.11-dbg : Depends: python3.11 (= "
		     "3.11.2-6+deb12u8) but 3.11.2-6+deb12u9 is to be "
		     "installed",
		"a refusal names the first unmet dependency");
	debugpkg_parse_refusal("", "E: Unable to locate package nope\n", why,
			       sizeof(why));
	TAP_STR(why, "Unable to locate package nope", "else apt's E: line");
}

static void test_owner(void)
{
	/* dpkg -S /bin/sh (dash diverts it) */
	static const char sh[] = "diversion by dash from: /bin/sh\n"
				 "diversion by dash to: /bin/sh.distrib\n"
				 "dash: /bin/sh\n";
	/* dpkg -S /usr/lib/debug /usr/lib/python3.11 */
	static const char many[] =
		"openjdk-17-jre-headless:amd64, libc6-dbg:amd64: "
		"/usr/lib/debug\n"
		"python3.11, python3.11-venv, python3-lib2to3, "
		"python3-distutils, "
		"libpython3.11:amd64, libpython3.11-stdlib:amd64, "
		"libpython3.11-minimal:amd64, libpython3.11-dev:amd64: "
		"/usr/lib/python3.11\n";
	/* dpkg -S /usr/lib/x86_64-linux-gnu/libc.so.6
	   /lib/x86_64-linux-gnu/libc.so.6: merged /usr, dpkg knows the
	   second */
	static const char libc[] =
		"libc6:amd64: /lib/x86_64-linux-gnu/libc.so.6\n";
	const char *p_sh[] = { "/bin/sh", NULL };
	const char *p_py[] = { "/usr/bin/python3.11", NULL };
	const char *p_lib[] = { "/usr/lib/python3.11", NULL };
	const char *p_dbg[] = { "/usr/lib/debug", NULL };
	const char *p_libc[] = { "/usr/lib/x86_64-linux-gnu/libc.so.6",
				 "/lib/x86_64-linux-gnu/libc.so.6", NULL };
	char pkg[128];

	TAP_OK(!debugpkg_parse_owner("python3.11-minimal: "
				     "/usr/bin/python3.11\n", p_py, pkg,
				     sizeof(pkg)) &&
	       !strcmp(pkg, "python3.11-minimal"), "the interpreter's owner");
	TAP_OK(!debugpkg_parse_owner(sh, p_sh, pkg, sizeof(pkg)) &&
	       !strcmp(pkg, "dash"), "diversion lines are skipped");
	TAP_OK(!debugpkg_parse_owner(many, p_lib, pkg, sizeof(pkg)) &&
	       !strcmp(pkg, "python3.11"), "the first of several owners");
	TAP_OK(!debugpkg_parse_owner(many, p_dbg, pkg, sizeof(pkg)) &&
	       !strcmp(pkg, "openjdk-17-jre-headless:amd64"),
	       "an owner with its :arch");
	TAP_OK(!debugpkg_parse_owner(libc, p_libc, pkg, sizeof(pkg)) &&
	       !strcmp(pkg, "libc6:amd64"), "the /usr-less alias");
	TAP_INT(debugpkg_parse_owner(libc, p_py, pkg, sizeof(pkg)), -1,
		"another path's line is no answer");
	TAP_INT(debugpkg_parse_owner("dpkg-query: no path found matching "
				     "pattern /usr/bin/python3.11\n", p_py,
				     pkg, sizeof(pkg)), -1,
		"dpkg's not-found message is no answer");
}

int main(void)
{
	test_show();
	test_sim();
	test_refusal();
	test_owner();
	return tap_done();
}
