/* SPDX-License-Identifier: GPL-2.0 */
/* The fake kernel is one header: shim.h. */
#include "../shim.h"
