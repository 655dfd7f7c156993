# SPDX-License-Identifier: GPL-2.0
"""Drive Debian's headless Chromium over the DevTools protocol, with the
standard library alone (a minimal RFC 6455 client): load a page, run
script in it, send real mouse and wheel input, collect console errors and
uncaught exceptions, take screenshots."""
import base64
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile
import threading
import time
import urllib.request


class WebSocket:
    def __init__(self, url):
        m = re.match(r'ws://([^:/]+):(\d+)(/.*)', url)
        host, port, path = m.group(1), int(m.group(2)), m.group(3)
        self.s = socket.create_connection((host, port), timeout=120)
        key = base64.b64encode(os.urandom(16)).decode()
        self.s.sendall((f'GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\n'
                        'Upgrade: websocket\r\nConnection: Upgrade\r\n'
                        f'Sec-WebSocket-Key: {key}\r\n'
                        'Sec-WebSocket-Version: 13\r\n\r\n').encode())
        head = b''
        while b'\r\n\r\n' not in head:
            head += self.s.recv(1)
        assert b' 101 ' in head.split(b'\r\n')[0], head
        self.buf = b''

    def _read(self, n):
        while len(self.buf) < n:
            chunk = self.s.recv(1 << 20)
            if not chunk:
                raise EOFError('DevTools closed the connection')
            self.buf += chunk
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def send(self, text):
        data = text.encode()
        mask = os.urandom(4)
        n = len(data)
        head = bytes([0x81])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack('>H', n)
        else:
            head += bytes([0x80 | 127]) + struct.pack('>Q', n)
        body = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        self.s.sendall(head + mask + body)

    def recv(self):
        msg = b''
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7f
            if n == 126:
                n = struct.unpack('>H', self._read(2))[0]
            elif n == 127:
                n = struct.unpack('>Q', self._read(8))[0]
            payload = self._read(n)
            op = b0 & 0x0f
            if op == 0x8:
                raise EOFError('DevTools closed the websocket')
            if op in (0x9, 0xa):
                continue
            msg += payload
            if b0 & 0x80:
                return msg.decode()


class Chromium:
    """One headless Chromium with one page."""

    def __init__(self, width=1400, height=900):
        exe = shutil.which('chromium')
        if not exe:
            raise FileNotFoundError('chromium')
        self.dir = tempfile.mkdtemp(prefix='pgf-chromium-')
        self.p = subprocess.Popen(
            [exe, '--headless', '--no-sandbox', '--disable-gpu',
             '--no-first-run', '--no-default-browser-check',
             '--remote-debugging-port=0', f'--user-data-dir={self.dir}',
             f'--window-size={width},{height}', '--hide-scrollbars',
             'about:blank'],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        port = None
        deadline = time.time() + 60
        while time.time() < deadline and port is None:
            line = self.p.stderr.readline()
            m = re.search(r'DevTools listening on ws://[^:]+:(\d+)/', line)
            if m:
                port = int(m.group(1))
            elif not line and self.p.poll() is not None:
                break
        assert port, 'chromium did not start its DevTools server'
        # keep reading its stderr, or a full pipe stops it
        threading.Thread(target=lambda: [None for _ in self.p.stderr],
                         daemon=True).start()
        pages = json.load(urllib.request.urlopen(
            f'http://127.0.0.1:{port}/json/list', timeout=30))
        page = [p for p in pages if p.get('type') == 'page'][0]
        self.ws = WebSocket(page['webSocketDebuggerUrl'])
        self.id = 0
        self.events = []
        self.errors = []
        self.call('Runtime.enable')
        self.call('Page.enable')
        self.call('Log.enable')
        self.call('Emulation.setDeviceMetricsOverride', width=width,
                  height=height, deviceScaleFactor=1, mobile=False)

    def _event(self, m):
        meth = m.get('method')
        if meth == 'Runtime.exceptionThrown':
            d = m['params']['exceptionDetails']
            self.errors.append('exception: ' + json.dumps(
                d.get('exception', {}).get('description') or d.get('text')))
        elif meth == 'Runtime.consoleAPICalled' and \
                m['params']['type'] in ('error', 'assert'):
            self.errors.append('console.error: ' + json.dumps(
                [a.get('value', a.get('description')) for a in m['params']['args']]))
        elif meth == 'Log.entryAdded' and m['params']['entry']['level'] == 'error':
            self.errors.append('log: ' + m['params']['entry']['text'])
        self.events.append(m)

    def call(self, method, **params):
        self.id += 1
        me = self.id
        self.ws.send(json.dumps({'id': me, 'method': method, 'params': params}))
        while True:
            m = json.loads(self.ws.recv())
            if m.get('id') == me:
                if 'error' in m:
                    raise RuntimeError(f'{method}: {m["error"]}')
                return m.get('result', {})
            self._event(m)

    def wait_event(self, method, timeout=120):
        for i, m in enumerate(self.events):
            if m.get('method') == method:
                del self.events[i]
                return m
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = json.loads(self.ws.recv())
            self._event(m)
            if m.get('method') == method:
                self.events.remove(m)
                return m
        raise TimeoutError(method)

    def load(self, url, timeout=120):
        self.events = [m for m in self.events
                       if m.get('method') != 'Page.loadEventFired']
        self.call('Page.navigate', url=url)
        self.wait_event('Page.loadEventFired', timeout)

    def js(self, expr):
        """The value of @expr (awaited if a promise)."""
        r = self.call('Runtime.evaluate', expression=expr, returnByValue=True,
                      awaitPromise=True)
        if 'exceptionDetails' in r:
            raise RuntimeError(f'{expr}: {r["exceptionDetails"]}')
        return r['result'].get('value')

    def wait(self, expr, timeout=60):
        deadline = time.time() + timeout
        while time.time() < deadline:
            v = self.js(expr)
            if v:
                return v
            time.sleep(0.05)
        raise TimeoutError(expr)

    def mouse(self, kind, x, y, **extra):
        self.call('Input.dispatchMouseEvent', type=kind, x=x, y=y, **extra)

    def screenshot(self, path):
        r = self.call('Page.captureScreenshot', format='png')
        with open(path, 'wb') as f:
            f.write(base64.b64decode(r['data']))

    def close(self):
        try:
            self.p.kill()
            self.p.wait(timeout=30)
        finally:
            shutil.rmtree(self.dir, ignore_errors=True)
