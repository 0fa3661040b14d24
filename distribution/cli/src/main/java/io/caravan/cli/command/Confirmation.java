package io.caravan.cli.command;

import java.io.IOException;
import java.util.OptionalInt;

import io.caravan.cli.Context;

/** Nomad's yes/no prompt before acting on something named by a prefix: only an exact "y" goes on. */
final class Confirmation {
    private Confirmation() {
    }

    /**
     * Asks {@code question}; empty when the answer is "y", else the exit code after saying why not: 0 for "n",
     * an empty line or a longer "yes" (with {@code cancelled} or Nomad's hint); 1 for anything else and when there
     * is no answer at all (end of input, e.g. a script without {@code -yes}), as Nomad.
     */
    static OptionalInt declined(Context ctx, String question, String cancelled) {
        String answer;
        try {
            answer = ctx.ask(question);
        } catch (IOException e) {
            answer = null;
        }
        if (answer == null) {
            ctx.out().println();
            ctx.err().println("Failed to parse answer: EOF");
            return OptionalInt.of(1);
        }
        if (answer.equals("y")) {
            return OptionalInt.empty();
        }
        if (answer.isEmpty() || Character.toLowerCase(answer.charAt(0)) == 'n') {
            ctx.out().println(cancelled);
            return OptionalInt.of(0);
        }
        if (Character.toLowerCase(answer.charAt(0)) == 'y') {
            ctx.out().println("For confirmation, an exact ‘y’ is required.");
            return OptionalInt.of(0);
        }
        ctx.out().println("No confirmation detected. For confirmation, an exact 'y' is required.");
        return OptionalInt.of(1);
    }
}
