package io.caravan.hcl.internal;

import io.caravan.hcl.Diagnostic;
import java.util.AbstractList;
import java.util.List;

/**
 * A caller's diagnostics list that takes at most {@link #MAX} of them, then one saying so: without a cap a broken
 * file (a megabyte of lines holding just "=") gets an error per line, a message many times larger than the file.
 */
final class CappedDiagnostics extends AbstractList<Diagnostic> {

    static final int MAX = 100;

    private final List<Diagnostic> target;
    private int offered;

    private CappedDiagnostics(List<Diagnostic> target) {
        this.target = target;
    }

    static List<Diagnostic> of(List<Diagnostic> target) {
        return target instanceof CappedDiagnostics ? target : new CappedDiagnostics(target);
    }

    @Override
    public boolean add(Diagnostic d) {
        offered++;
        if (offered <= MAX) {
            return target.add(d);
        }
        if (offered == MAX + 1) {
            target.add(Diagnostic.error("Too many errors", "Only the first " + MAX + " errors are reported.",
                    d.subject()));
        }
        return false;
    }

    @Override
    public Diagnostic get(int index) {
        return target.get(index);
    }

    @Override
    public int size() {
        return target.size();
    }
}
