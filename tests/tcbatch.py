#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Run the targetcli commands read from stdin in one targetcli shell.

The commands run in targetcli's own shell, one after the other, as in an
admin's interactive session; unlike that session (which logs a failed
command and reads on, exit status 0) the first command that fails ends
the run with exit status 1 and names the line. Blank lines and lines
starting with '#' are skipped. One python start for all of them: under
QEMU TCG each start of targetcli costs seconds.
"""
import importlib.machinery
import importlib.util
import os
import shutil
import sys


def main():
    path = shutil.which('targetcli') or '/usr/bin/targetcli'
    loader = importlib.machinery.SourceFileLoader('targetcli_cli', path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    cli = importlib.util.module_from_spec(spec)
    loader.exec_module(cli)
    shell = cli.TargetCLI(os.getenv('TARGETCLI_HOME', '~/.targetcli'))
    cli.UIRoot(shell, as_root=True).refresh()
    for n, line in enumerate(sys.stdin, 1):
        line = line.strip()
        if not line or line.startswith('#'):
            continue
        print('targetcli> ' + line, flush=True)
        try:
            shell.run_cmdline(line)
        except Exception as e:  # what targetcli's one-shot mode exits 1 on
            sys.stdout.flush()
            print('tcbatch: line %d: %s: %s' % (n, line, e), file=sys.stderr)
            return 1
        sys.stdout.flush()
    return 0


if __name__ == '__main__':
    sys.exit(main())
