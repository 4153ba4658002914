/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_BUILTIN_H
#define PPR_BUILTIN_H
/*
 * One entry point per subcommand, one file each (cmd/<name>.c).
 * argv[0] is the command's name; each returns an exit status
 * (cmd/exitcodes.h).  Each file also exports its usage, for
 * `pyperf-run help <command>`.
 */
struct usage;

int cmd_doctor(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_trampoline(int argc, char **argv);

extern const struct usage doctor_usage;
extern const struct usage record_usage;
extern const struct usage top_usage;
extern const struct usage report_usage;
extern const struct usage trampoline_usage;

#endif
