/* SPDX-License-Identifier: GPL-2.0 */
/*
 * html-assets - what pgfreport html embeds in its page, made at build
 * time by scripts/embed-assets.py (build/gen/html-assets.c): the page's
 * body, style and script (tools/pgfreport/html/), Apache ECharts
 * (npm, the version the Makefile pins) and the licences of both.
 */
#ifndef PGFREPORT_HTML_ASSETS_H
#define PGFREPORT_HTML_ASSETS_H

extern const char html_report_body[];
extern const char html_report_css[];
extern const char html_report_js[];
extern const char html_echarts_js[];
extern const char html_licences[];

#endif
