package dev.syncgc.e2e.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP relay on loopback in front of a local port, for a network fault made here: {@link #cut()}
 * closes every relayed connection and refuses new ones (as an API server that went away),
 * {@link #restore()} accepts them again on the same port. TLS passes through untouched.
 */
public final class TcpRelay implements AutoCloseable {
  private final int targetPort;
  private final int port;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile ServerSocket server;

  public TcpRelay(int targetPort) {
    this.targetPort = targetPort;
    try (ServerSocket probe = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
      this.port = probe.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    restore();
  }

  public int port() {
    return port;
  }

  /** Accepts and relays connections again (after {@link #cut()}). */
  public synchronized void restore() {
    if (server != null) {
      return;
    }
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
      server = s;
      Thread accept = new Thread(() -> acceptLoop(s), "relay-accept-" + port);
      accept.setDaemon(true);
      accept.start();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Closes every relayed connection and stops accepting: connections are refused until {@link #restore()}. */
  public synchronized void cut() {
    if (server != null) {
      closeQuietly(server);
      server = null;
    }
    open.forEach(TcpRelay::closeQuietly);
    open.clear();
  }

  private void acceptLoop(ServerSocket s) {
    while (!s.isClosed()) {
      try {
        Socket client = s.accept();
        Socket upstream = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        open.add(client);
        open.add(upstream);
        pump(client, upstream);
        pump(upstream, client);
      } catch (IOException e) {
        // closed by cut(), or the target refused: the client sees its connection closed
      }
    }
  }

  private void pump(Socket from, Socket to) {
    Thread t = new Thread(() -> {
      byte[] buffer = new byte[16 * 1024];
      try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
        int n;
        while ((n = in.read(buffer)) >= 0) {
          out.write(buffer, 0, n);
          out.flush();
        }
      } catch (IOException e) {
        // closed
      } finally {
        closeQuietly(from);
        closeQuietly(to);
        open.remove(from);
        open.remove(to);
      }
    }, "relay-" + port);
    t.setDaemon(true);
    t.start();
  }

  private static void closeQuietly(AutoCloseable c) {
    try {
      c.close();
    } catch (Exception e) {
      // already closed
    }
  }

  @Override
  public void close() {
    cut();
  }
}
