# SPDX-License-Identifier: GPL-2.0
"""The kernel's own VMA tests (tools/testing/vma), on the patched tree.

They build mm/vma.c and mm/vma.h in user space with stubs for the rest of
the kernel (tools/testing/vma/vma_internal.h), so a hook the series adds
there must have a stub there too, in the same patch. Built in a copy of
the parts of build/linux-src they use (the tree itself stays as the
kernels' builds left it), then run: every test must pass.

Debian's 6.12 calls vma_close() from mm/vma.c without the stub upstream
gave the tests along with it; the copy gets that stub if it lacks it (not
the series's doing, and nothing of the series's)."""
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
from ktaplib import test, main  # noqa: E402

TOP = os.path.normpath(os.path.join(os.path.dirname(__file__), '..', '..'))
TREE = os.path.join(TOP, 'build', 'linux-src')
COPY = os.path.join(TOP, 'build', 'vma-tests')
INTERNAL = 'tools/testing/vma/vma_internal.h'

VMA_CLOSE_STUB = '''
static inline void vma_close(struct vm_area_struct *vma)
{
	if (vma->vm_ops && vma->vm_ops->close) {
		vma->vm_ops->close(vma);
		vma->vm_ops = &vma_dummy_vm_ops;
	}
}
'''


@test
def the_series_stubs_its_hooks_for_the_vma_tests():
    with open(os.path.join(TREE, 'mm/vma.h')) as f:
        hooks = set(re.findall(r'\b(pgfault_history_\w+)\(', f.read()))
    with open(os.path.join(TREE, 'mm/vma.c')) as f:
        hooks |= set(re.findall(r'\b(pgfault_history_\w+)\(', f.read()))
    assert hooks, 'no pgfault_history hook in mm/vma.[ch]: is the series applied?'
    with open(os.path.join(TREE, INTERNAL)) as f:
        stubs = f.read()
    missing = [h for h in sorted(hooks)
               if not re.search(r'static inline void ' + h + r'\(', stubs)]
    assert not missing, f'no stub in {INTERNAL} for {missing}'


@test
def the_vma_tests_build_and_pass():
    if os.path.isdir(COPY):
        shutil.rmtree(COPY)
    os.makedirs(COPY)
    subprocess.run(['rsync', '-a', '--relative', 'tools/', 'include/', 'lib/',
                    'mm/', COPY + '/'], cwd=TREE, check=True)
    path = os.path.join(COPY, INTERNAL)
    with open(path) as f:
        text = f.read()
    if not re.search(r'\bvma_close\(', text):
        text = text.replace('#endif\t/* __MM_VMA_INTERNAL_H */',
                            VMA_CLOSE_STUB + '\n#endif\t/* __MM_VMA_INTERNAL_H */')
        with open(path, 'w') as f:
            f.write(text)
    d = os.path.join(COPY, 'tools/testing/vma')
    b = subprocess.run(['make', '-j2'], cwd=d, capture_output=True, text=True,
                       timeout=900)
    out = b.stdout + b.stderr
    warnings = [ln for ln in out.splitlines()
                if 'pgfault_history' in ln and 'warning' in ln]
    assert b.returncode == 0, out[-3000:]
    assert not warnings, '\n'.join(warnings)
    r = subprocess.run(['./vma'], cwd=d, capture_output=True, text=True,
                       timeout=600)
    out = r.stdout + r.stderr
    for ln in out.strip().splitlines()[-3:]:
        print(f'# {ln}')
    m = re.search(r'(\d+) tests run, (\d+) passed, (\d+) failed', out)
    assert r.returncode == 0, out[-3000:]
    assert m and int(m.group(1)) > 0 and m.group(3) == '0', out[-3000:]
    shutil.rmtree(COPY)


if __name__ == '__main__':
    main()
