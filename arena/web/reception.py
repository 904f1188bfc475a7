"""The reception: how connections are taken in and answered, so that idle or trickling clients
cannot take the server's threads.

``ThreadingHTTPServer`` starts a thread per connection, each blocked reading until its client
sends: a few hundred idle connections are a few hundred threads. Here one reception thread reads
every connection without blocking until its request has fully arrived (the head and its
``Content-Length`` of body), within the handler's ``timeout`` seconds of connecting (else 408 and
closed: a half-sent request holds no thread); only then does one of a fixed pool of
:data:`WORKERS` threads answer it, from memory (:class:`Received`). At most
:data:`MAX_CONNECTIONS` are held (the oldest unfinished one is dropped for a new one), the listen
backlog is :data:`BACKLOG`, heads are at most :data:`MAX_HEAD` bytes, and a client that goes
away mid-answer costs one log line.

Nothing here knows about games: :class:`Reception` is an ``HTTPServer`` for any handler built on
:class:`Received`.
"""

from __future__ import annotations

import io
import json
import queue
import re
import selectors
import socket
import sys
import threading
import time
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from contextlib import suppress
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import Any

MAX_BODY = 64 * 1024
MAX_HEAD = 16 * 1024  # a request's line and headers; the page's are well under 2 KiB
WORKERS = 16  # threads answering complete requests
BACKLOG = 128  # connections the kernel holds before they are accepted
MAX_CONNECTIONS = 512  # connections held at once, arriving or being answered
HEAD_END = re.compile(rb"\r?\n\r?\n")
CONTENT_LENGTH = re.compile(rb"^content-length[ \t]*:[ \t]*([^\r\n]*)", re.IGNORECASE | re.MULTILINE)


class SocketWriter(io.BufferedIOBase):
    """The answer's stream: every write sent whole (``sendall``), as ``socketserver`` does."""

    def __init__(self, connection: socket.socket) -> None:
        self.connection = connection

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        self.connection.sendall(data)
        with memoryview(data) as view:
            return view.nbytes


class Received(BaseHTTPRequestHandler):
    """A handler given a request that has fully arrived (:class:`Reception` reads it first), so
    it reads from memory; ``timeout`` bounds both that arrival and the sending of the answer."""

    timeout = 10.0

    def setup(self) -> None:
        self.connection, received = self.request
        self.connection.settimeout(self.timeout)
        self.rfile = io.BytesIO(received)
        self.wfile = SocketWriter(self.connection)


@dataclass
class Arrival:
    """A connection whose request is still arriving, and what has come so far."""

    address: tuple[str, int]
    deadline: float
    data: bytearray = field(default_factory=bytearray)

    def complete(self) -> bool:
        """Whether the request has fully arrived: its head, and as many bytes of body as its
        Content-Length says (one that is not a number, or out of bounds, is complete at once:
        the handler refuses it)."""
        end = HEAD_END.search(self.data)
        if end is None:
            return False
        length = CONTENT_LENGTH.search(self.data, 0, end.start())
        try:
            wanted = int(length.group(1)) if length else 0
        except ValueError:
            return True
        return not 0 <= wanted <= MAX_BODY or len(self.data) - end.end() >= wanted


class Reception(HTTPServer):
    """An HTTP server with one reception thread that reads requests as they arrive, and a fixed
    pool of workers answering complete ones: a connection costs a socket in a selector until its
    request is whole, and at most ``workers`` threads ever answer."""

    request_queue_size = BACKLOG

    def __init__(self, address: tuple[str, int], handler: type[Received], workers: int = WORKERS) -> None:
        super().__init__(address, handler)
        self.workers = ThreadPoolExecutor(workers, thread_name_prefix="domino-web")
        self.answering = 0  # connections handed to the workers and not yet closed
        self.count_lock = threading.Lock()
        self.arriving: OrderedDict[socket.socket, Arrival] = OrderedDict()  # oldest first
        self.inbox: queue.SimpleQueue[tuple[socket.socket, tuple[str, int]]] = queue.SimpleQueue()
        self.selector = selectors.DefaultSelector()
        self.wake_in, self.wake_out = socket.socketpair()
        self.wake_in.setblocking(False)
        self.wake_out.setblocking(False)
        self.selector.register(self.wake_in, selectors.EVENT_READ)
        self.closing = False
        self.reception = threading.Thread(target=self.receive, name="domino-web-reception", daemon=True)
        self.reception.start()

    def log(self, text: str) -> None:
        print(f"domino table: {text}", file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ arrival (the reception thread)

    def process_request(self, request: Any, client_address: Any) -> None:
        """Called by ``serve_forever`` for each accepted connection: hand it to the reception."""
        request.setblocking(False)
        self.inbox.put((request, client_address))
        self.wake()

    def wake(self) -> None:
        with suppress(OSError):  # BlockingIOError: already awake; else closing
            self.wake_out.send(b"\0")

    def receive(self) -> None:
        """Read every arriving request without blocking; hand each complete one to a worker,
        and close those not complete within the handler's ``timeout`` seconds of connecting."""
        while not self.closing:
            now = time.monotonic()
            first = next(iter(self.arriving.values()), None)
            wait = None if first is None else max(0.0, first.deadline - now)
            for key, _ in self.selector.select(wait):
                if key.fileobj is self.wake_in:
                    self.admit()
                else:
                    try:
                        self.read(key.fileobj)  # type: ignore[arg-type]
                    except Exception as error:  # never let one connection stop the reception
                        self.log(f"dropped a connection: {type(error).__name__}: {error}")
                        if key.fileobj in self.arriving:
                            self.drop(key.fileobj)  # type: ignore[arg-type]
            now = time.monotonic()
            while self.arriving:
                connection, arrival = next(iter(self.arriving.items()))
                if arrival.deadline > now:
                    break
                self.drop(connection, HTTPStatus.REQUEST_TIMEOUT, "the request did not arrive in time")

    def admit(self) -> None:
        with suppress(OSError):
            while self.wake_in.recv(4096):
                pass
        while True:
            try:
                connection, address = self.inbox.get_nowait()
            except queue.Empty:
                return
            if len(self.arriving) + self.answering >= MAX_CONNECTIONS:
                if not self.arriving:
                    self.shutdown_request(connection)
                    continue
                self.drop(next(iter(self.arriving)), HTTPStatus.SERVICE_UNAVAILABLE, "too many connections")
            self.arriving[connection] = Arrival(address, time.monotonic() + self.RequestHandlerClass.timeout)
            self.selector.register(connection, selectors.EVENT_READ)

    def read(self, connection: socket.socket) -> None:
        arrival = self.arriving.get(connection)
        if arrival is None:  # dropped for a newer connection since the selector saw it
            return
        try:
            data = connection.recv(65536)
        except BlockingIOError:
            return
        except OSError:
            self.drop(connection)
            return
        arrival.data += data
        if not data:  # the client closed its side: answer what came (a short body is refused)
            if arrival.data:
                self.hand_over(connection, arrival)
            else:
                self.drop(connection)
        elif arrival.complete():
            self.hand_over(connection, arrival)
        elif HEAD_END.search(arrival.data) is None and len(arrival.data) > MAX_HEAD:
            self.drop(connection, HTTPStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, f"headers over {MAX_HEAD} bytes")

    def drop(self, connection: socket.socket, status: HTTPStatus | None = None, reason: str = "") -> None:
        """Stop waiting for a request: say why in a few bytes (never blocking), and close."""
        self.selector.unregister(connection)
        del self.arriving[connection]
        if status is not None:
            body = json.dumps({"error": reason}).encode()
            head = f"HTTP/1.0 {status.value} {status.phrase}\r\nContent-Type: application/json\r\n"
            with suppress(OSError):
                connection.send(head.encode() + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
        self.shutdown_request(connection)

    def hand_over(self, connection: socket.socket, arrival: Arrival) -> None:
        self.selector.unregister(connection)
        del self.arriving[connection]
        connection.setblocking(True)
        with self.count_lock:
            self.answering += 1
        self.workers.submit(self.answer, connection, arrival.address, bytes(arrival.data))

    # ------------------------------------------------------------------ answer (a worker thread)

    def answer(self, connection: socket.socket, address: tuple[str, int], received: bytes) -> None:
        try:
            if not self.closing:
                self.finish_request((connection, received), address)
        except Exception:
            self.handle_error(connection, address)
        finally:
            self.shutdown_request(connection)
            with self.count_lock:
                self.answering -= 1

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (or stopped reading) mid-answer is one line, not a traceback."""
        error = sys.exc_info()[1]
        if isinstance(error, (BrokenPipeError, ConnectionResetError, TimeoutError)):
            where = f"{client_address[0]}:{client_address[1]}" if isinstance(client_address, tuple) else "a client"
            self.log(f"{where} went away before its answer was sent ({type(error).__name__})")
        else:
            super().handle_error(request, client_address)

    def server_close(self) -> None:
        """Stop listening, close the connections still arriving, and let the workers finish the
        answers under way (each bounded: agents' thinking is). Closing twice does nothing more."""
        super().server_close()
        if self.closing:
            return
        self.closing = True
        self.wake()
        self.reception.join()
        for connection in list(self.arriving):
            self.drop(connection)
        while True:
            try:
                self.shutdown_request(self.inbox.get_nowait()[0])
            except queue.Empty:
                break
        self.workers.shutdown(wait=True)
        self.selector.close()
        self.wake_in.close()
        self.wake_out.close()
