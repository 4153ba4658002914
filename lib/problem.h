/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef PPR_PROBLEM_H
#define PPR_PROBLEM_H
#include "compat.h"

/*
 * A message and the hint that goes with it: the one form such a pair
 * takes in lib/ (the decision's problems, route.h; doctor's probe
 * limit).  Both are filled with set_err(); hint is "" when nothing
 * would help.  A lone message is the caller's err buffer (compat.h).
 */
struct problem {
	char text[PPR_ERR_LEN];
	char hint[PPR_ERR_LEN];
};

#endif
