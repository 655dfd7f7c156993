# SPDX-License-Identifier: GPL-2.0
"""The man pages (tools/man) and bash completions (tools/completion) against
the tools and the kernel they describe.

- mandoc's lint and groff (through man-db's man --warnings) find nothing
  to say about any page;
- each tool's OPTIONS section lists exactly the options of its --help, and
  mentions every option its getopt table accepts;
- each tool's completion offers every option of its --help, and nothing
  the tool does not accept, with bash-completion and without it, and
  completes files, commands and fixed words where the options take them;
- proc_pid_pgfault_history(5) has an entry for every record type the
  tools read (the types table of tests/lib/pgf.h and the parser in
  tools/lib/pgftrace.c), for every command and start option the kernel's
  parser accepts (mm/pgfault_history/proc.c), states the kernel's ranges,
  and lists every errno the file's operations return (the proc file's own, and
  the Return: of the functions of mm/pgfault_history/ it calls).

Everything compared is extracted from the sources, so a new option, record
type or errno the pages miss fails here. Needs mandoc, man-db (groff) and,
for half of the completion tests, bash-completion (scripts/host-deps.sh).
Runs as a KTAP suite (python3 tests/host/test_man.py, as
scripts/run-tests.py does)."""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import Skip, test, main  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
BIN = os.path.join(TOP, 'build', 'host', 'bin')
MAN = os.path.join(TOP, 'tools', 'man')
COMPLETION = os.path.join(TOP, 'tools', 'completion')
BASH_COMPLETION = '/usr/share/bash-completion/bash_completion'
TOOLS = ('tracepgfault', 'pgfreport', 'pgfault-run')
PAGES = {'tracepgfault': 'tracepgfault.1', 'pgfreport': 'pgfreport.1',
         'pgfault-run': 'pgfault-run.1', 'proc': 'proc_pid_pgfault_history.5'}
# The tools written in Python, and where they are.
SCRIPTS = {'pgfault-run': os.path.join(TOP, 'scripts', 'pgfault-run')}


def page(name):
    return os.path.join(MAN, PAGES[name])


def read(path):
    with open(os.path.join(TOP, path)) as f:
        return f.read()


def need(program, package):
    if not shutil.which(program):
        raise AssertionError(f'{program} is not installed (Debian package '
                             f'{package}; scripts/host-deps.sh installs it)')


# ---- roff ----------------------------------------------------------------

ESCAPES = [(r'\-', '-'), (r'\(en', '-'), (r'\(em', '-'), (r'\(mu', 'x'),
           (r'\(aq', "'"), (r'\(*t', 'tau'), (r'\(*m', 'u'), (r'\e', '\\'),
           (r'\&', ''), (r'\ ', ' ')]


def unescape(s):
    s = re.sub(r'\\f(\[[^]]*\]|.)', '', s)      # font changes
    for a, b in ESCAPES:
        s = s.replace(a, b)
    return s


def macro_text(line):
    """The text a roff line puts out: a macro's arguments, unquoted."""
    if line.startswith(('.\\"', "'\\\"")):
        return ''
    if line.startswith('.'):
        parts = line.split(None, 1)
        if len(parts) == 1:
            return ''
        args = re.findall(r'"([^"]*)"|(\S+)', parts[1])
        macro = parts[0]
        sep = '' if macro in ('.BR', '.RB', '.BI', '.IB', '.IR', '.RI') else ' '
        return sep.join(a or b for a, b in args)
    return line


def sections(src):
    """{'SECTION': [lines]} and {'Subsection': [lines]} of a page."""
    sh, ss = {}, {}
    cur_sh = cur_ss = None
    for line in src.splitlines():
        m = re.match(r'\.(SH|SS)\s+"?([^"]*)"?\s*$', line)
        if m:
            name = unescape(m.group(2)).strip()
            if m.group(1) == 'SH':
                cur_sh, cur_ss = name, None
                sh[name] = []
            else:
                cur_ss = name
                ss[name] = []
            continue
        if cur_sh:
            sh[cur_sh].append(line)
        if cur_ss:
            ss[cur_ss].append(line)
    return sh, ss


def tags(lines):
    """The tag of every .TP entry, as text."""
    out = []
    for i, line in enumerate(lines):
        if line.strip() == '.TP':
            for nxt in lines[i + 1:]:
                if not nxt.startswith('.\\"'):
                    out.append(unescape(macro_text(nxt)).strip())
                    break
    return out


def plain(lines):
    """The text of some lines, joined, escapes gone."""
    return re.sub(r'\s+', ' ', ' '.join(unescape(macro_text(l))
                                         for l in lines))


OPTION = re.compile(r'(?<![\w-])(--?[A-Za-z0-9][\w-]*)')


def man_options(tool):
    sh, _ = sections(open(page(tool)).read())
    assert 'OPTIONS' in sh, f'{PAGES[tool]} has no OPTIONS section'
    found = set()
    for t in tags(sh['OPTIONS']):
        found.update(OPTION.findall(t))
    return found, plain(sh['OPTIONS'])


def man_command(cmd):
    """The options of pgfreport(1)'s COMMANDS subsection @cmd, and its
    text."""
    sh, ss = sections(open(page('pgfreport')).read())
    assert 'COMMANDS' in sh, 'pgfreport.1 has no COMMANDS section'
    assert cmd in ss, f'pgfreport.1 COMMANDS has no subsection {cmd}'
    found = set()
    for t in tags(ss[cmd]):
        found.update(OPTION.findall(t))
    return found, plain(ss[cmd])


# ---- the tools -----------------------------------------------------------

def help_text(tool, *words):
    """--help of @tool, or of its command @words (pgfreport map --help)."""
    p = subprocess.run([SCRIPTS.get(tool) or os.path.join(BIN, tool), *words,
                        '--help'],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert p.returncode == 0, (tool, words, p.returncode, p.stderr)
    return p.stdout


# ---- pgfreport's commands ------------------------------------------------

def pgfreport_commands():
    """The commands of the table in tools/pgfreport/pgfreport.c."""
    cmds = re.findall(r'\{\s*"([\w-]+)",\s*cmd_\w+,',
                      read('tools/pgfreport/pgfreport.c'))
    assert len(cmds) >= 10, cmds
    return cmds


def pgfreport_getopt(cmd):
    """Every option pgfreport @cmd accepts: the longopts table and short
    options of its cmd_*() in tools/pgfreport/builtin-*.c, and the common
    options of tools/pgfreport/pass.c its .takes lets in."""
    fn = 'cmd_' + cmd.replace('-', '_')
    body = None
    src_of = {}
    for f in sorted(glob.glob(os.path.join(TOP, 'tools', 'pgfreport',
                                           'builtin-*.c'))):
        src = open(f).read()
        m = re.search(r'\nint ' + fn + r'\(int argc, char \*\*argv\)\n\{.*?\n\}\n',
                      src, flags=re.S)
        if m:
            body = m.group(0)
            src_of[fn] = src
    assert body, f'no {fn}() in tools/pgfreport/builtin-*.c'
    m = re.search(r'report_main\(&(\w+),', body)
    if m:
        # a report (report.h): its struct names its options and shorts
        m = re.search(r'\nconst struct report ' + m.group(1) + r' = \{(.*?)\n\};',
                      src_of[fn], flags=re.S)
        assert m, f'{fn}(): no struct report'
        rep = m.group(1)
        table = re.search(r'\.longopts = (\w+)', rep)
        opts = ''
        if table:
            t = re.search(r'static const struct option ' + table.group(1) +
                          r'\[\] = \{(.*?)\n\};', src_of[fn], flags=re.S)
            assert t, f'{fn}(): no table {table.group(1)}'
            opts = t.group(1)
        shorts = re.search(r'\.shorts = "([^"]*)"', rep)
        body = opts + f'pass_getopt(&ps, argc, argv, "{shorts.group(1) if shorts else ""}"' + \
            rep
    found = {'--' + o for o in re.findall(
        r'\{\s*"([\w-]+)",\s*(?:no|required|optional)_argument', body)}
    m = re.search(r'pass_getopt\(&ps, argc, argv, "([^"]*)"', body)
    assert m, f'{fn}() calls no pass_getopt()'
    found |= {'-' + c for c in re.findall(r'[A-Za-z0-9]', m.group(1))}
    m = re.search(r'\.takes = ([\w |]+)', body)
    takes = set(re.findall(r'\w+', m.group(1))) if m else set()
    common = re.findall(r'\{\s*"([\w-]+)",\s*\w+_argument,\s*NULL,\s*(\w+|\'h\')',
                        read('tools/pgfreport/pass.c'))
    assert common, 'no common[] table in tools/pgfreport/pass.c'
    for name, code in common:
        # --table: a report of several tables (its .tables) with --format
        if (code == "'h'" or (code == 'OPT_PID' and 'TAKES_PID' in takes) or
                (code == 'OPT_FORMAT' and 'TAKES_FORMAT' in takes) or
                (code == 'OPT_TABLE' and 'TAKES_FORMAT' in takes and
                 re.search(r'\.tables = \w+', body)) or
                (code not in ('OPT_PID', 'OPT_FORMAT', 'OPT_TABLE', "'h'") and
                 'TAKES_FILTERS' in takes)):
            found.add('--' + name)
    found.add('-h')
    return found


def getopt_options(tool):
    """Every option tools/TOOL.c's getopt_long() accepts: {'-x', '--long'};
    for a Python tool, every option its parse() compares a word with."""
    if tool in SCRIPTS:
        src = open(SCRIPTS[tool]).read()
        body = src[src.index('def parse('):]
        body = body[:body.index('\ndef ')]
        found = set(re.findall(r"'(--?[A-Za-z][\w-]*)'", body))
        assert found, f'no options found in {SCRIPTS[tool]} parse()'
        return found
    if tool == 'pgfreport':
        # before a command: main()'s own words
        return set(re.findall(r'strcmp\(c, "(--?[\w-]+)"\)',
                              read('tools/pgfreport/pgfreport.c')))
    src = read(f'tools/{tool}.c')
    longs = re.findall(r'\{\s*"([\w-]+)",\s*(?:no|required|optional)_argument',
                       src)
    m = re.search(r'getopt_long\(\s*argc,\s*argv,\s*"([^"]*)"', src)
    assert m and longs, f'no getopt_long() table found in tools/{tool}.c'
    shorts = re.findall(r'[A-Za-z0-9]', m.group(1))
    return {'--' + o for o in longs} | {'-' + o for o in shorts}


def help_options(tool, *words):
    """The options --help lists (of @tool, or of its command @words): the
    tag of each option line (an indented line starting with -) of its
    option blocks, and the tool's own long options the blocks'
    descriptions name."""
    block, started = [], False
    for line in help_text(tool, *words).splitlines():
        if re.match(r'^  +-', line):
            started = True
        elif started and line and not line.startswith(' '):
            started = line.rstrip().endswith('options:')
            continue
        if started:
            block.append(line)
    assert block, f'{tool} {" ".join(words)} --help has no option lines'
    found = set()
    item = re.compile(r'^  +(-\w|--[\w-]+)(?:\[=\w+\])?(?:, (--[\w-]+))?')
    for line in block:
        m = item.match(line)
        if m:
            found.update(o for o in m.groups() if o)
    own = pgfreport_getopt(words[0]) if words else getopt_options(tool)
    for line in block:
        found.update(o for o in re.findall(r'(?<![\w-])(--[a-z][\w-]*)', line)
                     if o in own)
    return found


def differ(what, a_name, a, b_name, b):
    missing, extra = sorted(a - b), sorted(b - a)
    msg = []
    if missing:
        msg.append(f'in {a_name} but not in {b_name}: {" ".join(missing)}')
    if extra:
        msg.append(f'in {b_name} but not in {a_name}: {" ".join(extra)}')
    return f'{what}: ' + '; '.join(msg) if msg else ''


# ---- bash completion -----------------------------------------------------

COMPLETE = r'''
[[ $1 == bc ]] && . "$2"
. "$3"
shift 3
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE=${COMP_WORDS[0]}
for ((k = 1; k < ${#COMP_WORDS[@]}; k++)); do
	if [[ ${COMP_WORDS[k]} == = || ${COMP_WORDS[k - 1]} == = ]]; then
		COMP_LINE+=${COMP_WORDS[k]}
	else
		COMP_LINE+=" ${COMP_WORDS[k]}"
	fi
done
COMP_POINT=${#COMP_LINE}
spec=$(complete -p "${COMP_WORDS[0]##*/}") || exit 3
fn=${spec#*-F }
fn=${fn%% *}
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" \
	"${COMP_WORDS[COMP_CWORD - 1]}" 2>/dev/null
printf '%s\n' "${COMPREPLY[@]}"
'''


def complete(words, bc=False, cwd=None):
    """What the completion of TOOL offers for @words, the last being the
    word under the cursor; with bash-completion loaded if @bc."""
    tool = words[0]
    p = subprocess.run(['bash', '--norc', '--noprofile', '-c', COMPLETE, 'complete',
                        'bc' if bc else 'plain', BASH_COMPLETION,
                        os.path.join(COMPLETION, tool), *words],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=60, cwd=cwd,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 0, (words, p.returncode, p.stderr)
    return [w for w in p.stdout.split('\n') if w]


def modes():
    """Completion without bash-completion, and with it if installed."""
    yield False
    if os.path.exists(BASH_COMPLETION):
        yield True


def check_completion_offers_options(bc):
    how = 'with bash-completion' if bc else 'without bash-completion'
    words = [(tool, ()) for tool in TOOLS]
    words += [('pgfreport', (cmd,)) for cmd in pgfreport_commands()]
    for tool, cmd in words:
        name = ' '.join((tool,) + cmd)
        want = help_options(tool, *cmd)
        valid = pgfreport_getopt(cmd[0]) if cmd else getopt_options(tool)
        dash = {w.rstrip('=') for w in complete([tool, *cmd, '-'], bc)}
        dashdash = {w.rstrip('=') for w in complete([tool, *cmd, '--'], bc)}
        missing = sorted(want - dash)
        assert not missing, (f'{name} -<TAB> {how}: options of --help not '
                             f'offered: {" ".join(missing)}')
        longs = {o for o in want if o.startswith('--')}
        missing = sorted(longs - dashdash)
        assert not missing, (f'{name} --<TAB> {how}: options of --help not '
                             f'offered: {" ".join(missing)}')
        assert all(w.startswith('--') for w in dashdash), (name, dashdash)
        bogus = (dash | dashdash) - valid
        assert not bogus, (f'{name}: the completion offers options it does '
                           f'not accept: {" ".join(sorted(bogus))}')
    cmds = complete(['pgfreport', ''], bc)
    assert sorted(cmds) == sorted(pgfreport_commands()), (how, cmds)


# ---- the tests -----------------------------------------------------------

@test
def pages_pass_mandoc_lint():
    need('mandoc', 'mandoc')
    bad = []
    for name in sorted(PAGES.values()):
        p = subprocess.run(['mandoc', '-T', 'lint', '-W', 'warning',
                            os.path.join(MAN, name)],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True, timeout=60)
        if p.returncode or p.stdout.strip():
            bad.append(f'{name} (exit {p.returncode}):\n{p.stdout}')
    assert not bad, '\n'.join(bad)


@test
def pages_format_without_groff_warnings():
    need('man', 'man-db')
    bad = []
    env = dict(os.environ, MANWIDTH='80', LC_ALL='C.UTF-8', MANPAGER='cat',
               PAGER='cat')
    for name in sorted(PAGES.values()):
        p = subprocess.run(['man', '--warnings', '-l', os.path.join(MAN, name)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True, timeout=60, env=env,
                           stdin=subprocess.DEVNULL)
        if p.returncode or p.stderr.strip() or not p.stdout.strip():
            bad.append(f'{name} (exit {p.returncode}):\n{p.stderr}')
    assert not bad, '\n'.join(bad)


@test
def pages_have_their_sections():
    want = {'tracepgfault': ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS',
                             'EXIT STATUS', 'ENVIRONMENT', 'FILES', 'EXAMPLES',
                             'SEE ALSO'],
            'pgfreport': ['NAME', 'SYNOPSIS', 'DESCRIPTION', 'OPTIONS',
                          'EXIT STATUS', 'ENVIRONMENT', 'EXAMPLES', 'SEE ALSO'],
            'proc': ['NAME', 'DESCRIPTION', 'FILES', 'ERRORS', 'VERSIONS',
                     'NOTES', 'EXAMPLES', 'SEE ALSO']}
    refs = {'tracepgfault': ['pgfreport(1)', 'proc_pid_pgfault_history(5)'],
            'pgfreport': ['tracepgfault(1)', 'proc_pid_pgfault_history(5)'],
            'proc': ['tracepgfault(1)', 'pgfreport(1)', 'proc(5)',
                     'pgfault_history.rst']}
    for name, secs in want.items():
        sh, _ = sections(open(page(name)).read())
        have = [s for s in sh if s in secs]
        assert have == secs, (PAGES[name], 'sections', list(sh), 'want', secs)
        see = plain(sh['SEE ALSO'])
        for r in refs[name]:
            assert r in see, (PAGES[name], 'SEE ALSO lacks', r, see)


@test
def options_sections_list_the_options_of_help():
    for tool in TOOLS:
        in_help = help_options(tool)
        in_man, _ = man_options(tool)
        if tool == 'pgfreport':
            # before a command: --help and --version, among the common ones
            missing = in_help - in_man
            assert not missing, ('pgfreport --help options not in '
                                 f'pgfreport.1 OPTIONS: {" ".join(missing)}')
            continue
        msg = differ(tool, '--help', in_help, f'{PAGES[tool]} OPTIONS', in_man)
        assert not msg, msg


@test
def commands_subsections_list_the_options_of_each_command_s_help():
    common, _ = man_options('pgfreport')
    for cmd in pgfreport_commands():
        in_help = help_options('pgfreport', cmd)
        own, _ = man_command(cmd)
        # the common ones are OPTIONS' entries, the others the command's
        msg = differ(f'pgfreport {cmd}', '--help', in_help - common,
                     f'pgfreport.1 COMMANDS {cmd}', own)
        assert not msg, msg
        assert own.isdisjoint(common), (cmd, own & common)


@test
def every_command_is_in_help_man_and_completion():
    cmds = pgfreport_commands()
    top = help_text('pgfreport')
    listed = re.findall(r'^  ([a-z][\w-]*)  ', top, flags=re.M)
    assert listed == cmds, ('pgfreport --help lists', listed, 'the table', cmds)
    _, ss = sections(open(page('pgfreport')).read())
    missing = [c for c in cmds if c not in ss]
    assert not missing, f'pgfreport.1 COMMANDS lacks {missing}'


@test
def options_sections_mention_every_getopt_option():
    for tool in TOOLS:
        _, text = man_options(tool)
        mentioned = set(OPTION.findall(text))
        missing = getopt_options(tool) - mentioned
        assert not missing, (f'{tool} accepts {" ".join(sorted(missing))} '
                             f'(tools/{tool}), which {PAGES[tool]} OPTIONS '
                             'does not mention')
    _, common = man_options('pgfreport')
    for cmd in pgfreport_commands():
        _, text = man_command(cmd)
        mentioned = set(OPTION.findall(text + ' ' + common))
        missing = pgfreport_getopt(cmd) - mentioned
        assert not missing, (f'pgfreport {cmd} accepts '
                             f'{" ".join(sorted(missing))}, which pgfreport.1 '
                             f'COMMANDS {cmd} and OPTIONS do not mention')


@test
def completion_offers_every_option_of_help():
    check_completion_offers_options(False)


@test
def completion_with_bash_completion_offers_every_option_of_help():
    if not os.path.exists(BASH_COMPLETION):
        raise Skip(f'{BASH_COMPLETION} missing (Debian package bash-completion)')
    check_completion_offers_options(True)


@test
def completion_completes_option_arguments_files_and_commands():
    with tempfile.TemporaryDirectory() as d:
        for f in ('run.trace', 'heat.svg'):
            open(os.path.join(d, f), 'w').close()
        for bc in modes():
            how = f'bash-completion {"on" if bc else "off"}'

            def got(*words):
                return complete(list(words), bc, cwd=d)
            assert sorted(got('pgfreport', 'heatmap', '--x', '')) == \
                ['order', 'time'], how
            assert got('pgfreport', 'heatmap', '--x', '=', 'o') == ['order'], how
            for cmd, opt in (('heatmap', '-o'), ('heatmap', '--output'),
                             ('mrc', '--plot'), ('samples', '--map'),
                             ('compare', '--map'), ('export', '-o')):
                assert got('pgfreport', cmd, opt, 'h') == ['heat.svg'], \
                    (how, cmd, opt)
            assert got('pgfreport', 'summary', 'r') == ['run.trace'], how
            assert got('pgfreport', 'compare', 'run.trace', 'r') == \
                ['run.trace'], how
            assert got('pgfreport', 'map', '--width', '') == [], how
            assert got('pgfreport', 'map', '--', '-') == [], how
            assert sorted(got('pgfreport', 'export', '')) == \
                ['csv', 'json', 'lcs', 'lcs-csv', 'perfetto', 'refs'], how
            assert got('pgfreport', 'export', '-o', 'x', 'l') == \
                ['lcs', 'lcs-csv'], how
            assert got('pgfreport', 'export', 'csv', 'r') == ['run.trace'], how
            assert got('pgfreport', 'ma') == ['map'], how
            assert sorted(got('pgfreport', '--')) == ['--help', '--version'], how
            assert got('tracepgfault', '-q', '-o', 'r') == ['run.trace'], how
            assert got('tracepgfault', '--output', 'r') == ['run.trace'], how
            assert got('tracepgfault', '-i', '') == [], how
            assert got('tracepgfault', '-p', '1', '') == [], how
            assert got('tracepgfault', '-p', '1', '-o', 'r') == ['run.trace'], how
            pids = got('tracepgfault', '-fp', '')
            assert str(os.getpid()) in pids, (how, pids[:5])
            pids = got('tracepgfault', '-p', str(os.getpid())[:-1])
            assert str(os.getpid()) in pids, (how, pids[:5])
            # the command, whatever options came before
            for pre in ([], ['-f'], ['-i', '10'], ['-fqi', '10'], ['-w16'],
                        ['-o', 'out.trace'], ['-Fo', 'out.trace'], ['--', ]):
                cmds = got('tracepgfault', *pre, 'bas')
                assert 'bash' in cmds and not any(c.startswith('-') for c in cmds), \
                    (how, pre, cmds[:5])
            # and its arguments as that command's (files at least)
            assert 'run.trace' in got('tracepgfault', '-o', 'o.trace', 'cat', 'r'), how
            # OUTFILE COMMAND: after a first word that is not a command,
            # the command; after a command, its arguments
            for pre in ([], ['-f'], ['-w', '16']):
                cmds = got('tracepgfault', *pre, 'run.trace', 'bas')
                assert 'bash' in cmds, (how, pre, cmds[:5])
            assert 'run.trace' in got('tracepgfault', 'out.trace', 'cat', 'r'), how
            assert 'run.trace' in got('tracepgfault', 'cat', 'r'), how


# ---- the README's commands ------------------------------------------------

def readme_commands():
    """Every command line of the README's examples (indented or fenced
    code, and `inline code` in its tables) that runs one of the tools:
    (tool, words after it)."""
    text = read('README.md')
    cmds = []
    for line in text.splitlines():
        pieces = [line.strip().lstrip('$ ')] if line.startswith(('    ', '$')) else []
        pieces += re.findall(r'`([^`]+)`', line)
        for piece in pieces:
            piece = piece.split('#')[0]
            for part in re.split(r'&&|\||;', piece):
                w = part.split()
                while w and ('=' in w[0] and not w[0].startswith('-')):
                    w = w[1:]          # VAR=value before a command
                if not w:
                    continue
                tool = os.path.basename(w[0])
                if tool in TOOLS:
                    cmds.append((tool, w[1:]))
    return cmds


@test
def readme_commands_and_options_are_in_help():
    cmds = readme_commands()
    assert len(cmds) >= 8, cmds
    known = set(pgfreport_commands())
    for tool, words in cmds:
        sub = []
        if tool == 'pgfreport' and words and not words[0].startswith('-'):
            assert words[0] in known or words[0] == 'COMMAND', \
                f'README: pgfreport {words[0]} is not a command'
            if words[0] in known:
                sub = [words[0]]
        helped = help_text(tool, *sub)
        for w in words:
            if w == '--':
                break
            opt = w.split('=')[0]
            if re.fullmatch(r'--?[A-Za-z][\w-]*', opt):
                assert re.search(r'(?<![\w-])' + re.escape(opt) + r'(?![\w-])',
                                 helped), \
                    f'README shows {tool} {" ".join(sub)} {opt}, its --help lacks it'
    # the README's table of reports: each a command
    table = re.findall(r'^\| `([\w-]+)` \|', read('README.md'), flags=re.M)
    assert table and set(table) <= known, set(table) - known


def md_anchors(path):
    """The anchors of a Markdown file's headings, as GitHub makes them."""
    out, code = set(), False
    for line in read(path).splitlines():
        if line.startswith('```'):
            code = not code
        if not code and re.match(r'#{1,6} ', line):
            t = re.sub(r'[^\w\- ]', '', line.split(' ', 1)[1].strip().lower())
            out.add(t.replace(' ', '-'))
    return out


@test
def the_documents_links_resolve():
    docs = ['README.md'] + sorted(os.path.relpath(p, TOP) for p in
                                  glob.glob(os.path.join(TOP, 'Documentation', '*.md')))
    assert len(docs) >= 4, docs
    bad = []
    for doc in docs:
        here = os.path.dirname(doc)
        for link in re.findall(r'\]\(([^)\s]+)\)', read(doc)):
            if link.startswith(('http://', 'https://')):
                continue
            path, _, anchor = link.partition('#')
            target = os.path.normpath(os.path.join(here, path)) if path else doc
            if not os.path.exists(os.path.join(TOP, target)):
                bad.append((doc, link, 'no such file'))
            elif anchor and target.endswith('.md') and anchor not in md_anchors(target):
                bad.append((doc, link, 'no such heading'))
    assert not bad, bad


@test
def proc_page_has_every_record_type():
    pgf = read('tests/lib/pgf.h')
    m = re.search(r'types\[\]\s*=\s*\{(.*?)\};', pgf, flags=re.S)
    assert m, 'no types[] table in tests/lib/pgf.h'
    kinds = set(re.findall(r'\[PGFT_\w+\]\s*=\s*"(\w+)"', m.group(1)))
    parser = read('tools/lib/pgftrace.c')
    kinds |= set(re.findall(r'strcmp\(type, "(\w+)"\)', parser))
    # the change records, named by their kind (version 9)
    m = re.search(r'pgft_change_names\[PGFT_NCHANGE\]\s*=\s*\{(.*?)\};',
                  parser, flags=re.S)
    assert m, 'no pgft_change_names[] in tools/lib/pgftrace.c'
    kinds |= set(re.findall(r'\[PGFT_\w+\]\s*=\s*"(\w+)"', m.group(1)))
    assert {'fault', 'map', 'sample'} <= kinds, kinds
    _, ss = sections(open(page('proc')).read())
    assert 'Records' in ss, 'proc_pid_pgfault_history.5 has no Records subsection'
    entries = {t.split()[0] for t in tags(ss['Records']) if t.split()}
    missing = kinds - entries
    assert not missing, ('record types without an entry in '
                         'proc_pid_pgfault_history.5 Records: '
                         + ' '.join(sorted(missing)))
    header = ' '.join(tags(ss['Trace format']))
    assert 'pgfault_history VERSION pid PID page_size BYTES' in header, header


def kernel_commands():
    """Every command and start option mm/pgfault_history/proc.c accepts:
    the words of pgfault_history_write() and pgf_parse_start(), NAME= for each
    parameter pgf_parse_param() takes."""
    src = read('mm/pgfault_history/proc.c')
    m = re.search(r'\bpgf_parse_start\([^;]*?\)\s*\{.*?\n\}', src, flags=re.S)
    assert m, 'no pgf_parse_start() in mm/pgfault_history/proc.c'
    start = m.group(0)
    words = set(re.findall(r'strcmp\(word, "([^"]+)"\)', start))
    words |= {p + '=' for p in
              re.findall(r'pgf_parse_param\(word, "([^"]+)"', start)}
    words |= set(re.findall(r'strcmp\(strsep\(&s, " "\), "([^"]+)"\)', start))
    m = re.search(r'\bpgfault_history_write\([^;]*?\)\s*\{.*?\n\}', src, flags=re.S)
    assert m, 'no pgfault_history_write() in mm/pgfault_history/proc.c'
    words |= set(re.findall(r'strcmp\(s, "([^"]+)"\)', m.group(0)))
    assert {'1', '0', 'interval=', 'inherit'} <= words, words
    return words


@test
def proc_page_has_every_command_and_start_option():
    _, ss = sections(open(page('proc')).read())
    assert 'Writing' in ss, 'proc_pid_pgfault_history.5 has no Writing subsection'
    tokens = {w for t in tags(ss['Writing']) for w in t.split()}
    missing = {w for w in kernel_commands()
               if not any(t == w or (w.endswith('=') and t.startswith(w))
                          for t in tokens)}
    assert not missing, ('commands the kernel accepts without an entry in '
                         'proc_pid_pgfault_history.5 Writing: '
                         + ' '.join(sorted(missing)))


@test
def pages_state_the_kernels_ranges():
    hdr = read('mm/pgfault_history/internal.h')
    v = {k: int(n) for k, n in re.findall(r'#define PGF_(INTERVAL_MIN_MS|'
                                          r'INTERVAL_MAX_MS|WINDOW_MIN|'
                                          r'WINDOW_MAX)\s+(\d+)', hdr)}
    assert len(v) == 4, v
    interval = f'{v["INTERVAL_MIN_MS"]} to {v["INTERVAL_MAX_MS"]}'
    window = f'{v["WINDOW_MIN"]} to {v["WINDOW_MAX"]}'
    for name in ('proc', 'tracepgfault'):
        text = plain(open(page(name)).read().splitlines())
        for r in (interval, window):
            assert f'({r})' in text, (PAGES[name], 'does not say', r)
    _, ss = sections(open(page('proc')).read())
    text = plain(ss['Writing'])
    for opt, r in (('interval=', interval), ('window=', window),
                   ('sample=', interval)):
        assert re.search(re.escape(opt) + r'\w+ [^.]*\(' + r + r'\)', text), \
            ('proc_pid_pgfault_history.5 Writing: no range', r, 'for', opt)


def interface_errnos():
    """The errnos of the file's operations: the proc file's own, and those the
    Return: of each mm/ function it calls names."""
    src = re.sub(r'/\*.*?\*/', '', read('mm/pgfault_history/proc.c'),
                 flags=re.S)
    errs = set(re.findall(r'-(E[A-Z0-9]+)\b', src))
    if 'ERESTARTSYS' in errs:   # what user space sees without SA_RESTART
        errs = (errs - {'ERESTARTSYS'}) | {'EINTR'}
    calls = set(re.findall(r'\b(pgf_\w+)\s*\(', src))
    seen = set()
    for f in sorted(glob.glob(os.path.join(TOP, 'mm', 'pgfault_history', '*.c'))):
        with open(f) as fh:
            mm = fh.read()
        for m in re.finditer(r'/\*\*\s*\n\s*\*\s*(\w+)\(\)\s*-(.*?)\*/', mm,
                             flags=re.S):
            if m.group(1) in calls and 'Return:' in m.group(2):
                seen.add(m.group(1))
                errs |= set(re.findall(r'-(E[A-Z0-9]+)\b',
                                       m.group(2).split('Return:', 1)[1]))
    assert {'pgf_start', 'pgf_reader_attach'} <= seen, seen
    return errs


@test
def proc_page_lists_every_errno():
    sh, _ = sections(open(page('proc')).read())
    assert 'ERRORS' in sh
    listed = {t.split()[0] for t in tags(sh['ERRORS']) if t.split()}
    missing = interface_errnos() - listed
    assert not missing, ('errnos the interface returns that '
                         'proc_pid_pgfault_history.5 ERRORS does not list: '
                         + ' '.join(sorted(missing)))


main()
