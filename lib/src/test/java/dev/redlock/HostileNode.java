/*
 * Copyright 2026 The Redlock for Java authors
 * SPDX-License-Identifier: Apache-2.0
 */
package dev.redlock;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A fault injector that stands where a node should be and answers every command with bytes a broken or hostile
 * server might send. It is not a Redis: it reads the client's commands only to answer each one.
 */
final class HostileNode implements AutoCloseable {

    /** What it answers. */
    enum Mode {
        /** {@code *2147483647}: an array too long to allocate. */
        HUGE_ARRAY("*2147483647\r\n"),
        /** {@code $2147483647}: a bulk string too long to allocate. */
        HUGE_BULK("$2147483647\r\n"),
        /** 200,000 nested one-element arrays. */
        DEEP_NESTING("*1\r\n".repeat(200_000) + ":1\r\n"),
        /** {@code +OK} to everything: well-formed, but not the reply any command expects. */
        WRONG_SHAPE("+OK\r\n"),
        /** Accepts the connection and closes it at once, like a server that keeps crashing. */
        SLAM(null);

        final String reply;

        Mode(String reply) {
            this.reply = reply;
        }
    }

    private final ServerSocket server;
    private final Mode mode;
    private final AtomicInteger accepted = new AtomicInteger();
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Thread acceptor;

    HostileNode(Mode mode) throws IOException {
        this.mode = mode;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        this.acceptor = new Thread(this::accept, "hostile-node-" + mode);
        this.acceptor.setDaemon(true);
        this.acceptor.start();
    }

    String uri() {
        return "redis://127.0.0.1:" + server.getLocalPort();
    }

    String name() {
        return "127.0.0.1:" + server.getLocalPort();
    }

    /** How many connections it accepted. */
    int accepted() {
        return accepted.get();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket s = server.accept();
                accepted.incrementAndGet();
                if (mode == Mode.SLAM) {
                    s.close();
                    continue;
                }
                sockets.add(s);
                Thread t = new Thread(() -> serve(s), "hostile-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                return; // closed
            }
        }
    }

    /** Answers each command (an array of bulk strings) with the mode's bytes. */
    private void serve(Socket s) {
        byte[] reply = mode.reply.getBytes(StandardCharsets.US_ASCII);
        try (InputStream in = new BufferedInputStream(s.getInputStream());
                OutputStream out = s.getOutputStream()) {
            while (true) {
                int args = header(in, '*');
                for (int i = 0; i < args; i++) {
                    int len = header(in, '$');
                    in.readNBytes(len + 2);
                }
                out.write(reply);
                out.flush();
            }
        } catch (IOException e) {
            // the client dropped the connection, as it should
        }
    }

    private static int header(InputStream in, char type) throws IOException {
        int b = in.read();
        if (b != type) {
            throw new IOException("not a command: " + b);
        }
        int n = 0;
        while ((b = in.read()) != '\r') {
            if (b < 0) {
                throw new IOException("closed");
            }
            n = n * 10 + (b - '0');
        }
        in.read(); // \n
        return n;
    }

    @Override
    public void close() throws IOException {
        server.close();
        for (Socket s : sockets) {
            s.close();
        }
    }
}
