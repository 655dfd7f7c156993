/* SPDX-License-Identifier: GPL-2.0 */
/*
 * version.h - the version of the pgfault_history tools, which --version
 * prints with the newest trace format they read (PGFT_VERSION).
 */
#ifndef PGF_TOOLS_VERSION_H
#define PGF_TOOLS_VERSION_H

#define PGF_TOOLS_VERSION "1.1"

#endif
