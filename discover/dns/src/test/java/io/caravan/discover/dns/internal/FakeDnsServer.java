package io.caravan.discover.dns.internal;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

/**
 * A UDP DNS responder on 127.0.0.1 for tests: answers from a fixed table of (name, type) → record data, NXDOMAIN
 * for names it does not know, an empty answer for known names without records of the asked type.
 */
final class FakeDnsServer implements AutoCloseable {
    static final int A = 1;
    static final int AAAA = 28;
    static final int SRV = 33;

    /** Record data per lower-case name, then per query type. */
    private final Map<String, Map<Integer, List<byte[]>>> zone;
    private final DatagramSocket socket;
    private final Thread thread;

    FakeDnsServer(Map<String, Map<Integer, List<byte[]>>> zone) throws IOException {
        this.zone = zone;
        this.socket = new DatagramSocket(0, InetAddress.getLoopbackAddress());
        this.thread = new Thread(this::serve, "fake-dns");
        thread.setDaemon(true);
        thread.start();
    }

    String address() {
        return "127.0.0.1:" + socket.getLocalPort();
    }

    static byte[] srv(int priority, int weight, int port, String target) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        short16(out, priority);
        short16(out, weight);
        short16(out, port);
        name(out, target);
        return out.toByteArray();
    }

    static byte[] ip(String literal) throws IOException {
        return InetAddress.getByName(literal).getAddress();
    }

    private void serve() {
        byte[] buffer = new byte[512];
        while (!socket.isClosed()) {
            DatagramPacket query = new DatagramPacket(buffer, buffer.length);
            try {
                socket.receive(query);
                byte[] answer = answer(query.getData(), query.getLength());
                socket.send(new DatagramPacket(answer, answer.length, query.getSocketAddress()));
            } catch (SocketException closed) {
                return;
            } catch (IOException | RuntimeException e) {
                // a malformed query: ignore it, the client retries or times out
            }
        }
    }

    private byte[] answer(byte[] q, int length) {
        int i = 12;
        StringBuilder name = new StringBuilder();
        while (q[i] != 0) {
            int len = q[i] & 0xff;
            if (name.length() > 0) {
                name.append('.');
            }
            name.append(new String(q, i + 1, len, StandardCharsets.US_ASCII));
            i += len + 1;
        }
        i++;
        int type = ((q[i] & 0xff) << 8) | (q[i + 1] & 0xff);
        int questionEnd = i + 4;
        Map<Integer, List<byte[]>> records = zone.get(name.toString().toLowerCase());
        List<byte[]> rdatas = records == null ? List.of() : records.getOrDefault(type, List.of());

        ByteArrayOutputStream out = new ByteArrayOutputStream();
        out.write(q[0]);
        out.write(q[1]);
        short16(out, records == null ? 0x8183 : 0x8180); // response, RD+RA; rcode 3 = NXDOMAIN
        short16(out, 1);
        short16(out, rdatas.size());
        short16(out, 0);
        short16(out, 0);
        out.write(q, 12, questionEnd - 12);
        for (byte[] rdata : rdatas) {
            short16(out, 0xC00C); // pointer to the question's name
            short16(out, type);
            short16(out, 1); // IN
            short16(out, 0);
            short16(out, 60); // TTL
            short16(out, rdata.length);
            out.write(rdata, 0, rdata.length);
        }
        return out.toByteArray();
    }

    private static void short16(ByteArrayOutputStream out, int v) {
        out.write((v >> 8) & 0xff);
        out.write(v & 0xff);
    }

    private static void name(ByteArrayOutputStream out, String name) {
        if (!name.isEmpty() && !name.equals(".")) {
            for (String label : name.split("\\.")) {
                byte[] b = label.getBytes(StandardCharsets.US_ASCII);
                out.write(b.length);
                out.write(b, 0, b.length);
            }
        }
        out.write(0);
    }

    @Override
    public void close() throws InterruptedException {
        socket.close();
        thread.join(2000);
    }
}
