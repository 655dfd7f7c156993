#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Make build/gen/html-assets.c: what pgfreport html embeds in its page
(tools/pgfreport/html-assets.h), as C strings.

    embed-assets.py OUT.c HTML_DIR VENDOR

HTML_DIR holds body.html, report.css and report.js; VENDOR the npm
packages vendored in the tree (echarts, and zrender and tslib that its
dist bundles: tools/pgfreport/html/vendor, made by make vendor-echarts),
whose licences go into the page with their versions."""
import json
import os
import sys


def c_string(name, data):
    out = [f'const char {name}[] =']
    for i in range(0, len(data), 76):
        chunk = data[i:i + 76]
        esc = ''.join('\\\\' if c == '\\' else '\\"' if c == '"' else
                      '\\n' if c == '\n' else '\\t' if c == '\t' else
                      '\\?' if c == '?' else
                      c if 32 <= ord(c) < 127 else
                      ''.join(f'\\{b:03o}' for b in c.encode()) for c in chunk)
        out.append(f'\t"{esc}"')
    if len(out) == 1:
        out.append('\t""')
    return '\n'.join(out) + ';\n'


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def main():
    out, html, mods = sys.argv[1:4]
    lic = ['pgfreport html (pgfault_history): GPL-2.0.',
           'It embeds the following, under their own licences:', '']
    for pkg in ('echarts', 'zrender', 'tslib'):
        d = os.path.join(mods, pkg)
        meta = json.loads(read(os.path.join(d, 'package.json')))
        lic.append(f'==== {pkg} {meta["version"]} ({meta.get("license")}), '
                   f'from npm, vendored ====')
        for f in ('LICENSE', 'LICENSE.txt', 'NOTICE'):
            if os.path.exists(os.path.join(d, f)):
                lic.append(read(os.path.join(d, f)).rstrip())
                lic.append('')
    text = '\n'.join(lic) + '\n'
    if '</script' in text.lower():
        sys.exit('embed-assets: a licence holds "</script"')
    js = read(os.path.join(mods, 'echarts', 'dist', 'echarts.min.js'))
    if '</script' in js.lower():
        sys.exit('embed-assets: echarts.min.js holds "</script"')
    parts = ['/* Made by scripts/embed-assets.py: do not edit. */\n',
             '#include "html-assets.h"\n\n',
             c_string('html_report_body', read(os.path.join(html, 'body.html'))),
             c_string('html_report_css', read(os.path.join(html, 'report.css'))),
             c_string('html_report_js', read(os.path.join(html, 'report.js'))),
             c_string('html_echarts_js', js),
             c_string('html_licences', text)]
    tmp = out + '.tmp'
    with open(tmp, 'w') as f:
        f.write(''.join(parts))
    os.replace(tmp, out)


main()
