package io.caravan.driver.executor.internal;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The fields of {@code /proc/<pid>/stat} the executor needs: the state letter ({@code Z} for a zombie), the process
 * group, and the start time in clock ticks after boot, which together with the pid identifies a process for good
 * (pids are reused, start times are not).
 */
record ProcStat(char state, long parent, long processGroup, long startTicks) {
    private static final Path PROC = Path.of("/proc");

    static Optional<ProcStat> of(long pid) {
        if (pid <= 0) {
            return Optional.empty();
        }
        String line;
        try {
            line = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
        } catch (IOException e) {
            return Optional.empty(); // gone
        }
        return Optional.of(parse(line));
    }

    /** The command name (field 2) may hold spaces and parentheses, so fields are counted from its last ')'. */
    static ProcStat parse(String line) {
        String[] fields = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
        // fields[0] is field 3 (state), [1] field 4 (ppid), [2] field 5 (pgrp), [19] field 22 (starttime)
        return new ProcStat(fields[0].charAt(0), Long.parseLong(fields[1]), Long.parseLong(fields[2]),
                Long.parseLong(fields[19]));
    }

    /** Some child of {@code pid}, if it has one (a scan of {@code /proc}: this kernel may lack {@code children}). */
    static Optional<Long> childOf(long pid) {
        try (Stream<Path> entries = Files.list(PROC)) {
            return entries.map(p -> p.getFileName().toString()).filter(name -> name.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong)
                    .filter(candidate -> of(candidate).filter(s -> s.parent() == pid).isPresent())
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** {@code pid} and its descendants, from one scan of {@code /proc}. */
    static List<Long> tree(long pid) {
        Map<Long, List<Long>> children = new HashMap<>();
        try (Stream<Path> entries = Files.list(PROC)) {
            entries.map(p -> p.getFileName().toString()).filter(name -> name.chars().allMatch(Character::isDigit))
                    .map(Long::parseLong)
                    .forEach(candidate -> of(candidate).ifPresent(
                            s -> children.computeIfAbsent(s.parent(), k -> new ArrayList<>()).add(candidate)));
        } catch (IOException e) {
            return List.of(pid);
        }
        List<Long> out = new ArrayList<>();
        Deque<Long> todo = new ArrayDeque<>(List.of(pid));
        while (!todo.isEmpty()) {
            long next = todo.pop();
            out.add(next);
            todo.addAll(children.getOrDefault(next, List.of()));
        }
        return out;
    }

    /** Whether {@code pid} has a handler for {@code signal} (bit {@code signal - 1} of SigCgt in its status). */
    static boolean catches(long pid, int signal) {
        try {
            return Files.readAllLines(PROC.resolve(Long.toString(pid)).resolve("status")).stream()
                    .filter(line -> line.startsWith("SigCgt:"))
                    .anyMatch(line -> (Long.parseUnsignedLong(line.substring(7).trim(), 16) >>> (signal - 1) & 1) == 1);
        } catch (IOException | NumberFormatException e) {
            return false;
        }
    }

    boolean exited() {
        return state == 'Z' || state == 'X';
    }
}
