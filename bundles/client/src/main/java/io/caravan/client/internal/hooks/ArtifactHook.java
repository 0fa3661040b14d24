package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;

import io.caravan.api.model.TaskArtifact;

/**
 * {@code artifacts}: fetches each {@code artifact} block into the task directory before the first start.
 * Sources: {@code http://}, {@code https://}, {@code file://}, plain absolute paths and paths relative to the task
 * directory; local files must be inside the allocation directory unless the client's {@link ArtifactSandbox} allows
 * more (as Nomad's go-getter sandbox). {@code options { checksum = "sha256:…" }} (md5, sha1, sha256, sha512) is
 * verified before the file is moved into place. The destination (default {@code local/}) is interpolated and must
 * stay inside the task directory: {@code ..}, absolute paths and symbolic links already on disk that leave it are
 * refused. A destination ending in {@code /} (or mode {@code dir}) is a directory that receives the source's file
 * name; otherwise ({@code mode = "file"}) it is the file itself.
 *
 * <p>Archives ({@code .zip}, {@code .tar}, {@code .tar.gz}/{@code .tgz}, {@code .gz}) are unpacked into a directory
 * destination, as go-getter does, unless {@code options { archive = "false" }} ({@link ArtifactArchives}).
 *
 * <p>Not supported (yet): bzip2/xz archives, git/hg/s3/gcs sources, interpolation of getter options and headers,
 * go-getter's decompression limits.
 */
public final class ArtifactHook implements TaskHook.Prestart {
    static final Duration HTTP_TIMEOUT = Duration.ofMinutes(5);

    private HttpClient http;   // guarded by this
    /** Read at each download: a reload may change the client's artifact settings. */
    private final java.util.function.Supplier<ArtifactSandbox> sandbox;
    private boolean done;

    public ArtifactHook(ArtifactSandbox sandbox) {
        this(() -> sandbox);
    }

    public ArtifactHook(java.util.function.Supplier<ArtifactSandbox> sandbox) {
        this(null, sandbox);
    }

    /** @param http the client for downloads, or null to build one at the first (most tasks have no artifact) */
    ArtifactHook(HttpClient http, java.util.function.Supplier<ArtifactSandbox> sandbox) {
        this.http = http;
        this.sandbox = sandbox;
    }

    /** A JDK client keeps a selector thread from its creation until it is collected: built only when needed. */
    private synchronized HttpClient http() {
        if (http == null) {
            http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL)
                    .connectTimeout(Duration.ofSeconds(30)).build();
        }
        return http;
    }

    @Override
    public String name() {
        return "artifacts";
    }

    @Override
    public void prestart(TaskHookContext ctx) throws ArtifactException {
        if (done || ctx.task().artifacts().isEmpty()) {
            return;
        }
        ctx.emit(ctx.events().downloadingArtifacts());
        Interpolator interpolator = ctx.interpolator();
        for (TaskArtifact artifact : ctx.task().artifacts()) {
            try {
                fetch(artifact, interpolator, ctx.taskDir());
            } catch (ArtifactException e) {
                ctx.emit(ctx.events().artifactDownloadFailed(e.getMessage()));
                throw e;
            }
        }
        done = true;
    }

    /** A download that failed; the message is what the task's event shows. */
    public static final class ArtifactException extends Exception {
        private static final long serialVersionUID = 1L;

        public ArtifactException(String message) {
            super(message);
        }
    }

    void fetch(TaskArtifact artifact, Interpolator interpolator, Path taskDir) throws ArtifactException {
        String source = interpolator.interpolate(artifact.getterSource());
        if (source == null || source.isBlank()) {
            throw new ArtifactException("artifact has no source");
        }
        String relative = artifact.relativeDest() == null || artifact.relativeDest().isBlank() ? "local/"
                : interpolator.interpolate(artifact.relativeDest());
        boolean intoDirectory = !TaskArtifact.MODE_FILE.equals(artifact.getterMode())
                && (relative.endsWith("/") || TaskArtifact.MODE_DIR.equals(artifact.getterMode())
                || TaskArtifact.MODE_ANY.equals(artifact.getterMode()) || artifact.getterMode() == null);
        Path dest = confine(taskDir, relative);
        String name = fileName(source);
        Path target = intoDirectory ? dest.resolve(name) : dest;
        Map<String, String> options = artifact.getterOptions();
        // go-getter unpacks archives into the destination directory unless told not to (options { archive = false }).
        ArtifactArchives.Kind archive = intoDirectory && !"false".equalsIgnoreCase(options.get("archive"))
                ? ArtifactArchives.kind(name) : null;
        try {
            Files.createDirectories(target.getParent());
            Path tmp = Files.createTempFile(target.getParent(), ".artifact", ".part");
            try {
                download(source, artifact.getterHeaders(), tmp, taskDir.toAbsolutePath().normalize());
                verifyChecksum(tmp, options.get("checksum"));
                if (archive != null) {
                    ArtifactArchives.extract(archive, name, tmp, dest);
                } else {
                    Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
                }
            } finally {
                Files.deleteIfExists(tmp);
            }
        } catch (IOException e) {
            throw new ArtifactException("failed to download artifact \"" + source + "\": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ArtifactException("artifact download interrupted: " + source);
        }
    }

    /** {@code relative} resolved against the task dir; refused if the result is not inside it. */
    public static Path confine(Path taskDir, String relative) throws ArtifactException {
        Path root = taskDir.toAbsolutePath().normalize();
        Path resolved;
        try {
            resolved = root.resolve(relative).normalize();
        } catch (RuntimeException e) {
            throw new ArtifactException("invalid artifact destination \"" + relative + "\"");
        }
        boolean inside;
        try {
            inside = resolved.startsWith(root) && ArtifactSandbox.staysInside(root, resolved);
        } catch (IOException e) {
            inside = false;
        }
        if (!inside) {
            throw new ArtifactException("artifact destination path escapes the task directory: \"" + relative + "\"");
        }
        return resolved;
    }

    private void download(String source, Map<String, String> headers, Path to, Path taskDir)
            throws IOException, InterruptedException, ArtifactException {
        String lower = source.toLowerCase(Locale.ROOT);
        if (lower.startsWith("http://") || lower.startsWith("https://")) {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(source)).timeout(HTTP_TIMEOUT).GET();
            headers.forEach(request::header);
            HttpResponse<InputStream> response = http().send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
            try (InputStream body = response.body()) {
                if (response.statusCode() / 100 != 2) {
                    throw new ArtifactException("failed to download artifact \"" + source + "\": bad response code: "
                            + response.statusCode());
                }
                Files.copy(body, to, StandardCopyOption.REPLACE_EXISTING);
            }
        } else if (lower.startsWith("file://") || !source.contains("://") && !source.contains("::")) {
            Path named;
            try {
                named = lower.startsWith("file://") ? Paths.get(URI.create(source))
                        : taskDir.resolve(source); // relative: go-getter's working directory, the task dir
            } catch (RuntimeException e) {
                throw new ArtifactException("invalid artifact source \"" + source + "\"");
            }
            // The task dir is <alloc dir>/<task>: a local source may come from anywhere in the allocation.
            Path from = sandbox.get().readable(named, taskDir.getParent(), source);
            if (!Files.isRegularFile(from)) {
                throw new ArtifactException("artifact source is not a file: " + source);
            }
            Files.copy(from, to, StandardCopyOption.REPLACE_EXISTING);
        } else {
            throw new ArtifactException("unsupported artifact source \"" + source
                    + "\" (supported: http, https, file)");
        }
    }

    static void verifyChecksum(Path file, String checksum) throws IOException, ArtifactException {
        if (checksum == null || checksum.isBlank()) {
            return;
        }
        int colon = checksum.indexOf(':');
        if (colon < 0) {
            throw new ArtifactException("invalid checksum \"" + checksum + "\": want type:value");
        }
        String type = checksum.substring(0, colon).toLowerCase(Locale.ROOT);
        String want = checksum.substring(colon + 1).trim().toLowerCase(Locale.ROOT);
        String algorithm = switch (type) {
            case "md5" -> "MD5";
            case "sha1" -> "SHA-1";
            case "sha256" -> "SHA-256";
            case "sha512" -> "SHA-512";
            default -> throw new ArtifactException("unsupported checksum type: " + type);
        };
        MessageDigest digest;
        try {
            digest = MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new ArtifactException("unsupported checksum type: " + type);
        }
        try (InputStream in = Files.newInputStream(file)) {
            byte[] buffer = new byte[64 * 1024];
            for (int n; (n = in.read(buffer)) > 0; ) {
                digest.update(buffer, 0, n);
            }
        }
        String got = HexFormat.of().formatHex(digest.digest());
        if (!got.equals(want)) {
            throw new ArtifactException("checksums did not match: expected " + want + ", got " + got);
        }
    }

    static String fileName(String source) {
        String path = source;
        int query = path.indexOf('?');
        if (query >= 0) {
            path = path.substring(0, query);
        }
        String name = path.substring(path.lastIndexOf('/') + 1);
        return name.isBlank() || name.equals("..") || name.equals(".") ? "artifact" : name;
    }
}
