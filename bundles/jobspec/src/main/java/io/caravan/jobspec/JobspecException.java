package io.caravan.jobspec;

import io.caravan.api.ErrorCode;
import java.util.List;
import java.util.stream.Collectors;

/**
 * A jobspec that cannot be turned into a job. Carries every problem found (not only the first), so a user fixes
 * them in one round; the message is their {@code file:line:column: message} lines and never a stack trace. The HTTP
 * layer answers {@link #code()} (400) with the message as body, as Nomad does for a bad jobspec.
 */
public final class JobspecException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<Problem> problems;

    public JobspecException(List<Problem> problems) {
        super(problems.stream().map(Problem::toString).collect(Collectors.joining("\n")));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a JobspecException needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    public List<Problem> problems() {
        return problems;
    }

    public ErrorCode code() {
        return ErrorCode.BAD_REQUEST;
    }
}
