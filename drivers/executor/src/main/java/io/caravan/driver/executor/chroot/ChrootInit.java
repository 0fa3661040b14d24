package io.caravan.driver.executor.chroot;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

import io.caravan.driver.executor.Isolation;

/**
 * The isolation in front of a chrooted task (exec, java): {@code unshare} gives it new pid, mount, ipc and uts namespaces and forks
 * {@link #SCRIPT} as the pid namespace's init. That script joins the task's cgroups, builds the chroot inside the
 * new mount namespace (so every mount vanishes with the task, and none leaks to the host), starts the command
 * chrooted, passes signals on to it (an init drops signals it has no handler for) and exits with its status. When
 * the init dies, the kernel kills everything left in the namespace. A signal that comes before the command has
 * started ends the task at once, as if the command had got it: passed on to a child that has not yet replaced the
 * shell's copy by {@code exec}, it would be lost.
 */
final class ChrootInit {
    /**
     * Arguments: chroot binary, root, alloc dir, chroot_env dirs (':'-separated), cgroup dirs (':'), work dir; then
     * the command. The environment is the task's, so the script uses a PATH of its own and restores the task's.
     */
    static final String SCRIPT = """
            chroot=$1 root=$2 alloc=$3 dirs=$4 cgroups=$5 wd=$6; shift 6
            c= early=
            for s in 1 2 3 10 12 14 15 28; do   # HUP INT QUIT USR1 USR2 ALRM TERM WINCH
              trap "if [ -n \\"\\$c\\" ]; then kill -$s \\$c; else early=\\${early:-$s}; fi" $s
            done
            task_path=${PATH-} had_path=${PATH+1}
            PATH=/usr/sbin:/usr/bin:/sbin:/bin
            fail() { echo "caravan chroot: $*" >&2; exit 111; }
            IFS=:
            for g in $cgroups; do echo 0 > "$g/cgroup.procs" || fail "cannot join cgroup $g"; done
            for d in $dirs; do
              if [ -L "$d" ]; then mkdir -p "$root${d%/*}" && ln -sfn "$(readlink "$d")" "$root$d" || fail "cannot link $d"
              elif [ -d "$d" ]; then
                mkdir -p "$root$d" && mount --rbind "$d" "$root$d" && mount -o remount,bind,ro "$root$d" \\
                  || fail "cannot mount $d"
              fi
            done
            unset IFS
            [ -d "$root/tmp" ] || { mkdir -p "$root/tmp" && chmod 1777 "$root/tmp"; } || fail "cannot create /tmp"
            mkdir -p "$root/dev" "$root/proc" "$root/private" || fail "cannot create directories in $root"
            mount -t tmpfs -o mode=755,size=64k tmpfs "$root/dev" || fail "cannot mount /dev"
            for n in null zero full random urandom tty; do
              touch "$root/dev/$n" && mount --bind "/dev/$n" "$root/dev/$n" || fail "cannot mount /dev/$n"
            done
            ln -s /proc/self/fd "$root/dev/fd"; ln -s fd/0 "$root/dev/stdin"
            ln -s fd/1 "$root/dev/stdout"; ln -s fd/2 "$root/dev/stderr"
            mkdir "$root/dev/shm" && mount -t tmpfs -o mode=1777,size=64m tmpfs "$root/dev/shm" || fail "cannot mount /dev/shm"
            mount -t proc proc "$root/proc" || fail "cannot mount /proc"
            if [ -d "$alloc" ]; then mkdir -p "$root/alloc" && mount --bind "$alloc" "$root/alloc" || fail "cannot mount /alloc"; fi
            mount -t tmpfs -o ro,size=4k tmpfs "$root/private" || fail "cannot hide /private"
            [ -z "$early" ] || exit $((128 + early))
            if [ -n "$had_path" ]; then PATH=$task_path; else unset PATH; fi
            "$chroot" "$root" /usr/bin/env --chdir="$wd" --default-signal "$@" &
            c=$!
            [ -z "$early" ] || kill -$early $c   # came between the fork and c=$!
            while :; do wait $c; r=$?; kill -0 $c 2>/dev/null || break; done
            exit $r
            """;

    private final String unshare;
    private final String shell;
    private final String chroot;

    ChrootInit(String unshare, String shell, String chroot) {
        this.unshare = unshare;
        this.shell = shell;
        this.chroot = chroot;
    }

    Isolation isolation(Path root, Path allocDir, Collection<String> chrootEnv, Collection<Path> cgroups,
                        String workDir) {
        return new Isolation(List.of(unshare, "--pid", "--fork", "--mount", "--ipc", "--uts",
                "--propagation", "private", shell, "-c", SCRIPT, "caravan-init",
                chroot, root.toString(), allocDir.toString(), String.join(":", chrootEnv),
                cgroups.stream().map(Path::toString).collect(Collectors.joining(":")), workDir), true);
    }
}
