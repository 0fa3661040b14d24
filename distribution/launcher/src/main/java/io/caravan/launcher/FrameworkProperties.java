package io.caravan.launcher;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The framework properties of an agent: one place, shared by the launcher and the in-container tests. */
final class FrameworkProperties {
    /**
     * SLF4J lives on the launcher class path and is exported from the system bundle (STACK.md setup C); 1.7 is
     * exported too because the web console imports [1.7,2). {@code sun.misc} carries the signal API.
     */
    static final String SYSTEM_PACKAGES_EXTRA = String.join(",",
            "org.slf4j;version=2.0.20", "org.slf4j.event;version=2.0.20", "org.slf4j.helpers;version=2.0.20",
            "org.slf4j.spi;version=2.0.20", "org.slf4j;version=1.7.36", "org.slf4j.helpers;version=1.7.36",
            "sun.misc");

    private FrameworkProperties() {
    }

    static Map<String, String> of(Path home, Path cache, List<String> agentArgs) {
        Map<String, String> p = new HashMap<>();
        p.put("org.osgi.framework.storage", cache.toString());
        p.put("org.osgi.framework.storage.clean", "onFirstInit");
        p.put("org.osgi.framework.system.packages.extra", SYSTEM_PACKAGES_EXTRA);
        p.put("felix.log.level", "1");
        // The resolver runs in the thread that asks: its default pool (one thread per core) resolves the bundles once
        // at start and then idles for the agent's life.
        p.put("felix.resolver.parallelism", "1");
        // deploy/ takes drop-in bundles, etc/ maps *.cfg files into Config Admin. etc/ is input only: FileInstall
        // must never write configurations back (STACK.md gotcha 8).
        p.put("felix.fileinstall.dir", home.resolve("deploy") + "," + home.resolve("etc"));
        p.put("felix.fileinstall.poll", "500");
        p.put("felix.fileinstall.noInitialDelay", "true");
        p.put("felix.fileinstall.enableConfigSave", "false");
        p.put("felix.fileinstall.log.level", "2");
        // Poll (every 500 ms, as configured) rather than a WatchService, which costs a JDK thread per directory.
        p.put("felix.fileinstall.disableNio2", "true");
        // Until the agent has read its flags and configured PID org.apache.felix.http, Jetty listens on a random
        // loopback port: never a port another agent may want, and no "Jetty not started" warning.
        p.put("org.apache.felix.http.host", "127.0.0.1");
        p.put("org.osgi.service.http.port", "0");
        p.put("org.apache.felix.https.enable", "false");
        p.put("org.apache.felix.jetty.gziphandler.enable", "true");
        p.put("org.apache.felix.jetty.gzip.syncFlush", "true"); // streams reach gzip clients as flushed (PidTranslator)
        p.put(Launcher.HOME, home.toString());
        p.put(Launcher.AGENT_ARGS, String.join("\0", agentArgs));
        return p;
    }
}
