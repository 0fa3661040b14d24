package io.caravan.driver.executor.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import io.caravan.plugin.api.driver.DriverException;

/**
 * Runs a command as another user with util-linux {@code setpriv}, which {@code exec}s the command (the pid stays
 * the task's, unlike {@code su} or {@code runuser}, which fork). Users come from {@code /etc/passwd}.
 */
final class UserSwitch {
    private static final Path PASSWD = Path.of("/etc/passwd");

    private final String setpriv;

    UserSwitch(String setpriv) {
        this.setpriv = setpriv;
    }

    List<String> wrap(String user, List<String> command) throws DriverException {
        if (user.isEmpty()) {
            return command;
        }
        if (setpriv == null) {
            throw new DriverException("cannot run as user " + user + ": setpriv (util-linux) is not installed");
        }
        if (!HostTools.runningAsRoot()) {
            throw new DriverException("cannot run as user " + user + ": the agent does not run as root");
        }
        Account account = find(user)
                .orElseThrow(() -> new DriverException("user " + user + " not found in " + PASSWD));
        List<String> argv = new ArrayList<>(List.of(setpriv, "--reuid=" + account.uid(),
                "--regid=" + account.gid(), "--init-groups", "--"));
        argv.addAll(command);
        return argv;
    }

    record Account(String name, long uid, long gid) {
    }

    static Optional<Account> find(String user) throws DriverException {
        try {
            for (String line : Files.readAllLines(PASSWD)) {
                String[] f = line.split(":");
                if (f.length >= 4 && (f[0].equals(user) || f[2].equals(user))) {
                    return Optional.of(new Account(f[0], Long.parseLong(f[2]), Long.parseLong(f[3])));
                }
            }
            return Optional.empty();
        } catch (IOException | NumberFormatException e) {
            throw new DriverException("cannot read " + PASSWD + ": " + e.getMessage(), e);
        }
    }
}
