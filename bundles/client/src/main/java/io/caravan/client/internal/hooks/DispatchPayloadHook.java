package io.caravan.client.internal.hooks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import io.caravan.api.codec.Snappy;
import io.caravan.api.model.Job;
import io.caravan.api.model.Task;

/**
 * {@code dispatch_payload}: writes a dispatched job's payload to {@code local/<file>} of each task that asks for it
 * ({@code dispatch_payload { file = "…" }}). Nomad stores payloads snappy-compressed; a payload that is not valid
 * snappy is written as it is. The file must stay inside {@code local/}.
 */
public final class DispatchPayloadHook implements TaskHook.Prestart {
    @Override
    public String name() {
        return "dispatch_payload";
    }

    @Override
    public void prestart(TaskHookContext ctx) throws IOException {
        Task task = ctx.task();
        Job job = ctx.alloc().job();
        if (task.dispatchPayload() == null || task.dispatchPayload().file() == null
                || task.dispatchPayload().file().isBlank() || job == null || job.payload() == null
                || job.payload().isEmpty()) {
            return;
        }
        Path local = ctx.allocDir().taskLocal(task.name());
        Path target;
        try {
            target = ArtifactHook.confine(local, task.dispatchPayload().file());
        } catch (ArtifactHook.ArtifactException e) {
            throw new IOException("dispatch payload file escapes the task's local directory: "
                    + task.dispatchPayload().file());
        }
        byte[] stored = job.decodePayload();
        byte[] payload = Snappy.decodeOrNull(stored);
        Files.createDirectories(target.getParent());
        Files.write(target, payload != null ? payload : stored);
    }
}
