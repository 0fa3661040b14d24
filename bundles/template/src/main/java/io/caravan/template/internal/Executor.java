package io.caravan.template.internal;

import io.caravan.template.Accessible;
import io.caravan.template.Args;
import io.caravan.template.MissingKey;
import io.caravan.template.TemplateException;
import io.caravan.template.TemplateFunction;
import io.caravan.template.TemplateOptions;
import io.caravan.template.internal.Node.*;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/** Walks a tree against data, writing the output; one instance per execution. */
public final class Executor {
    /** "No final value": the first command of a pipeline gets no piped argument. */
    private static final Object MISSING = new Object();

    private final Map<String, Tree> trees;
    private final TemplateOptions options;
    private final StringBuilder out = new StringBuilder();
    private final List<String> varNames = new ArrayList<>();
    private final List<Object> varValues = new ArrayList<>();
    private Tree tree;
    private Node at;
    private long steps;
    private int depth;

    private static final class Break extends RuntimeException {
        private static final long serialVersionUID = 1L;
        Break() { super(null, null, false, false); }
    }

    private static final class Continue extends RuntimeException {
        private static final long serialVersionUID = 1L;
        Continue() { super(null, null, false, false); }
    }

    /** An execution error that already knows where it happened. */
    private static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        final TemplateException error;
        Failure(TemplateException error) {
            super(null, null, false, false);
            this.error = error;
        }
    }

    public Executor(Map<String, Tree> trees, TemplateOptions options) {
        this.trees = trees;
        this.options = options;
    }

    public String execute(Tree t, Object data) throws TemplateException {
        tree = t;
        varNames.add("$");
        varValues.add(data);
        try {
            walk(data, t.root());
            return out.toString();
        } catch (Failure f) {
            throw f.error;
        } catch (StackOverflowError e) {
            throw new TemplateException("template: " + t.name() + ": nesting too deep to execute", t.name(), 0, 0);
        }
    }

    // ---- errors

    private Failure fail(String message) {
        Tree t = tree;
        String context = at == null ? "" : at.print(false);
        if (context.length() > 20) context = context.substring(0, 20) + "...";
        String prefix = "template: ";
        int line = 0;
        int col = 0;
        if (at != null) {
            int[] lc = Tree.lineColumn(t.source(), at.pos());
            line = lc[0];
            col = lc[1];
            prefix += t.parseName() + ":" + line + ":" + col + ": executing " + GoFmt.quote(t.name()) + " at <"
                    + context + ">: ";
        } else {
            prefix += t.name() + ": ";
        }
        return new Failure(new TemplateException(prefix + message, t.name(), line, col));
    }

    private void step() {
        if (++steps > options.maxSteps()) {
            throw fail("exceeded the budget of " + options.maxSteps() + " evaluation steps (Go has no such limit)");
        }
    }

    private void write(String s) {
        out.append(s);
        if (out.length() > options.maxOutput()) {
            throw fail("output exceeds the limit of " + options.maxOutput() + " characters (Go has no such limit)");
        }
    }

    // ---- statements

    private void walk(Object dot, Node node) {
        step();
        if (node instanceof ListNode l) {
            for (Node n : l.nodes()) walk(dot, n);
        } else if (node instanceof TextNode t) {
            write(t.text());
        } else if (node instanceof ActionNode a) {
            Object v = evalPipeline(dot, a.pipe());
            if (a.pipe().decl().isEmpty()) {
                at = a;
                write(v == null || v == Values.NO_VALUE ? "<no value>" : GoFmt.toText(v));
            }
        } else if (node instanceof BranchNode b) {
            if (b.kind().equals("range")) walkRange(dot, b);
            else walkIfOrWith(dot, b);
        } else if (node instanceof TemplateNode t) {
            walkTemplate(dot, t);
        } else if (node instanceof BreakNode) {
            throw new Break();
        } else if (node instanceof ContinueNode) {
            throw new Continue();
        } else {
            at = node;
            throw fail("unknown node: " + node.print(false));
        }
    }

    private void walkIfOrWith(Object dot, BranchNode b) {
        int mark = varNames.size();
        try {
            Object v = evalPipeline(dot, b.pipe());
            if (Values.truth(v)) {
                walk(b.kind().equals("with") ? v : dot, b.list());
            } else if (b.elseList() != null) {
                walk(dot, b.elseList());
            }
        } finally {
            pop(mark);
        }
    }

    private void walkRange(Object dot, BranchNode r) {
        at = r;
        int outer = varNames.size();
        try {
            Object v = evalPipeline(dot, r.pipe());
            int mark = varNames.size();
            boolean any = false;
            if (v instanceof Map<?, ?> m) {
                for (Object k : Values.sortedKeys(m)) {
                    any = true;
                    if (!iteration(r, mark, k, m.get(k))) break;
                }
            } else if (Values.asList(v) != null) {
                List<Object> l = Values.asList(v);
                for (int i = 0; i < l.size(); i++) {
                    any = true;
                    if (!iteration(r, mark, (long) i, l.get(i))) break;
                }
            } else if (Values.isInt(v)) {
                if (r.pipe().decl().size() > 1) {
                    at = r;
                    throw fail("can't use " + v + " to iterate over more than one variable");
                }
                long n = ((Number) v).longValue();
                for (long i = 0; i < n; i++) {
                    any = true;
                    if (!iteration(r, mark, i, i)) break;
                }
            } else if (v instanceof Iterable<?> || v instanceof Iterator<?>) {
                Iterator<?> it = v instanceof Iterable<?> itb ? itb.iterator() : (Iterator<?>) v;
                long i = 0;
                while (it.hasNext()) {
                    any = true;
                    if (!iteration(r, mark, i++, it.next())) break;
                }
            } else if (v != null && v != Values.NO_VALUE) {
                at = r;
                throw fail("range can't iterate over " + GoFmt.toText(v));
            }
            if (!any && r.elseList() != null) walk(dot, r.elseList());
        } finally {
            pop(outer);
        }
    }

    /** One pass of a range body; false when it ended with {{break}}. */
    private boolean iteration(BranchNode r, int mark, Object index, Object elem) {
        step();
        List<VariableNode> decl = r.pipe().decl();
        if (!decl.isEmpty()) {
            if (r.pipe().isAssign()) {
                setVar(decl.get(0).ident().get(0), decl.size() > 1 ? index : elem);
                if (decl.size() > 1) setVar(decl.get(1).ident().get(0), elem);
            } else if (decl.size() > 1) {
                varValues.set(mark - 1, elem);
                varValues.set(mark - 2, index);
            } else {
                varValues.set(mark - 1, elem);
            }
        }
        try {
            walk(elem, r.list());
        } catch (Continue c) {
            // next element
        } catch (Break b) {
            return false;
        } finally {
            pop(mark);
        }
        return true;
    }

    private void walkTemplate(Object dot, TemplateNode t) {
        at = t;
        Tree target = trees.get(t.name());
        if (target == null) throw fail("template " + GoFmt.quote(t.name()) + " not defined");
        if (depth >= options.maxDepth()) {
            throw fail("exceeded maximum template depth (" + options.maxDepth() + ")");
        }
        Object newDot = t.pipe() == null ? null : evalPipeline(dot, t.pipe());
        List<String> savedNames = new ArrayList<>(varNames);
        List<Object> savedValues = new ArrayList<>(varValues);
        Tree savedTree = tree;
        varNames.clear();
        varValues.clear();
        varNames.add("$");
        varValues.add(newDot);
        depth++;
        tree = target;
        try {
            walk(newDot, target.root());
        } finally {
            depth--;
            tree = savedTree;
            varNames.clear();
            varValues.clear();
            varNames.addAll(savedNames);
            varValues.addAll(savedValues);
        }
    }

    // ---- variables

    private void pop(int mark) {
        while (varNames.size() > mark) {
            varNames.remove(varNames.size() - 1);
            varValues.remove(varValues.size() - 1);
        }
    }

    private void setVar(String name, Object value) {
        for (int i = varNames.size() - 1; i >= 0; i--) {
            if (varNames.get(i).equals(name)) {
                varValues.set(i, value);
                return;
            }
        }
        throw fail("undefined variable: " + name);
    }

    private Object varValue(String name) {
        for (int i = varNames.size() - 1; i >= 0; i--) {
            if (varNames.get(i).equals(name)) return varValues.get(i);
        }
        throw fail("undefined variable: " + name);
    }

    // ---- expressions

    private Object evalPipeline(Object dot, PipeNode pipe) {
        at = pipe;
        Object value = MISSING;
        for (CommandNode c : pipe.cmds()) value = evalCommand(dot, c, value);
        for (VariableNode v : pipe.decl()) {
            if (pipe.isAssign()) setVar(v.ident().get(0), value);
            else {
                varNames.add(v.ident().get(0));
                varValues.add(value);
            }
        }
        return value;
    }

    private Object evalCommand(Object dot, CommandNode cmd, Object fin) {
        step();
        Node first = cmd.args().get(0);
        if (first instanceof FieldNode f) return evalFieldChain(dot, dot, f, f.ident(), cmd.args(), fin);
        if (first instanceof ChainNode c) return evalChain(dot, c, cmd.args(), fin);
        if (first instanceof IdentifierNode id) return evalFunction(dot, id, cmd, cmd.args(), fin);
        if (first instanceof PipeNode p) {
            notAFunction(cmd.args(), fin, p);
            return evalPipeline(dot, p);
        }
        if (first instanceof VariableNode v) return evalVariable(dot, v, cmd.args(), fin);
        at = first;
        notAFunction(cmd.args(), fin, first);
        if (first instanceof BoolNode b) return b.value();
        if (first instanceof DotNode) return dot;
        if (first instanceof NilNode) throw fail("nil is not a command");
        if (first instanceof NumberNode n) return constant(n);
        if (first instanceof StringNode s) return s.text();
        throw fail("can't evaluate command " + GoFmt.quote(first.print(false)));
    }

    private void notAFunction(List<Node> args, Object fin, Node what) {
        if (args.size() > 1 || fin != MISSING) {
            at = what;
            throw fail("can't give argument to non-function " + what.print(false));
        }
    }

    private Object constant(NumberNode n) {
        at = n;
        if (n.value() == null) throw fail("complex numbers are not supported: " + n.text());
        return n.value();
    }

    private Object evalArg(Object dot, Node n) {
        at = n;
        if (n instanceof DotNode) return dot;
        if (n instanceof NilNode) return null;
        if (n instanceof FieldNode f) return evalFieldChain(dot, dot, f, f.ident(), List.of(n), MISSING);
        if (n instanceof VariableNode v) return evalVariable(dot, v, List.of(n), MISSING);
        if (n instanceof PipeNode p) return evalPipeline(dot, p);
        if (n instanceof IdentifierNode id) return evalFunction(dot, id, id, List.of(n), MISSING);
        if (n instanceof ChainNode c) return evalChain(dot, c, List.of(n), MISSING);
        if (n instanceof BoolNode b) return b.value();
        if (n instanceof NumberNode num) return constant(num);
        if (n instanceof StringNode s) return s.text();
        throw fail("can't handle " + n.print(false) + " as an argument");
    }

    private Object evalChain(Object dot, ChainNode c, List<Node> args, Object fin) {
        at = c;
        if (c.node() instanceof NilNode) throw fail("indirection through explicit nil in " + c.print(false));
        Object recv = evalArg(dot, c.node());
        return evalFieldChain(dot, recv, c, c.fields(), args, fin);
    }

    private Object evalVariable(Object dot, VariableNode v, List<Node> args, Object fin) {
        at = v;
        Object value = varValue(v.ident().get(0));
        if (v.ident().size() == 1) {
            notAFunction(args, fin, v);
            return value;
        }
        return evalFieldChain(dot, value, v, v.ident().subList(1, v.ident().size()), args, fin);
    }

    private Object evalFieldChain(Object dot, Object recv, Node node, List<String> idents, List<Node> args, Object fin) {
        int n = idents.size();
        for (int i = 0; i < n - 1; i++) recv = evalField(dot, idents.get(i), node, List.of(), MISSING, recv);
        return evalField(dot, idents.get(n - 1), node, args, fin, recv);
    }

    private Object evalField(Object dot, String name, Node node, List<Node> args, Object fin, Object recv) {
        at = node;
        boolean hasArgs = args.size() > 1 || fin != MISSING;
        if (recv == null || recv == Values.NO_VALUE) {
            if (options.missingKey() == MissingKey.ERROR) throw fail("nil data; no entry for key " + GoFmt.quote(name));
            return Values.NO_VALUE;
        }
        if (recv instanceof Accessible acc) {
            List<Object> values = new ArrayList<>();
            for (int i = 1; i < args.size(); i++) values.add(unwrap(evalArg(dot, args.get(i))));
            if (fin != MISSING) values.add(unwrap(fin));
            at = node;
            Object result;
            try {
                result = acc.access(name, values);
            } catch (Failure | Break | Continue e) {
                throw e;
            } catch (IllegalArgumentException e) {
                throw fail(e.getMessage());
            } catch (Exception e) {
                throw fail("error calling " + name + ": " + e.getMessage());
            }
            if (result != Accessible.NO_SUCH) return Values.normalize(result);
        }
        // Go looks up a method first, then the map key: an Accessible map falls back to its entries.
        if (recv instanceof Map<?, ?> m) {
            Object sample = m.isEmpty() ? null : m.keySet().iterator().next();
            if (sample == null || sample instanceof String) {
                if (hasArgs) throw fail(name + " is not a method but has arguments");
                if (m.containsKey(name)) return Values.normalize(m.get(name));
                switch (options.missingKey()) {
                    case ERROR: throw fail("map has no entry for key " + GoFmt.quote(name));
                    case ZERO: return m.isEmpty() ? Values.NO_VALUE : Values.zeroLike(m.values().iterator().next());
                    default: return Values.NO_VALUE;
                }
            }
        } else if (!(recv instanceof Accessible) && recv.getClass().isRecord()) {
            for (RecordComponent rc : recv.getClass().getRecordComponents()) {
                if (rc.getName().equals(name) || capitalized(rc.getName()).equals(name)) {
                    if (hasArgs) throw fail(name + " has arguments but cannot be invoked as function");
                    try {
                        rc.getAccessor().setAccessible(true);
                        return Values.normalize(rc.getAccessor().invoke(recv));
                    } catch (InvocationTargetException e) {
                        throw fail("error calling " + name + ": " + e.getCause().getMessage());
                    } catch (ReflectiveOperationException | RuntimeException e) {
                        throw fail("can't evaluate field " + name + " in type " + Values.typeName(recv));
                    }
                }
            }
        }
        throw fail("can't evaluate field " + name + " in type " + Values.typeName(recv));
    }

    private static String capitalized(String s) {
        return s.isEmpty() ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    /** Functions see no difference between "no value" and nil, as a Go interface{} parameter would not. */
    private static Object unwrap(Object v) {
        return v == Values.NO_VALUE ? null : v;
    }

    /** The builtin {@code call}: errors name the node that gave the function, as Go's do. */
    private Object call(List<Node> args, List<Object> values) {
        if (values.isEmpty()) throw fail("wrong number of args for call: want at least 1 got 0");
        String what = args.size() > 1 ? args.get(1).print(false) : "pipeline value";
        Object f = values.get(0);
        if (f == null) throw fail("error calling call: call of nil");
        if (!(f instanceof TemplateFunction fn)) {
            throw fail("error calling call: non-function " + what + " of type " + Values.typeName(f));
        }
        try {
            return Values.normalize(fn.call(new Args(what, values.subList(1, values.size()))));
        } catch (Failure | Break | Continue e) {
            throw e;
        } catch (Exception e) {
            throw fail("error calling call: " + e.getMessage());
        }
    }

    private Object evalFunction(Object dot, IdentifierNode id, Node cmd, List<Node> args, Object fin) {
        at = id;
        TemplateFunction fn = options.functions().get(id.name()).orElse(null);
        if (fn == null) throw fail(GoFmt.quote(id.name()) + " is not a defined function");
        if (fn == Builtins.AND || fn == Builtins.OR) {
            int count = args.size() - 1 + (fin != MISSING ? 1 : 0);
            if (count == 0) throw fail("wrong number of args for " + id.name() + ": want at least 1 got 0");
            Object v = null;
            for (int i = 1; i <= count; i++) {
                v = i < args.size() ? evalArg(dot, args.get(i)) : fin;
                if (Values.truth(v) == (fn == Builtins.OR)) return v;
            }
            return v;
        }
        List<Object> values = new ArrayList<>();
        for (int i = 1; i < args.size(); i++) values.add(unwrap(evalArg(dot, args.get(i))));
        if (fin != MISSING) values.add(unwrap(fin));
        at = cmd;
        if (fn == Builtins.CALL) return call(args, values);
        try {
            return Values.normalize(fn.call(new Args(id.name(), values)));
        } catch (Failure | Break | Continue e) {
            throw e;
        } catch (IllegalArgumentException e) {
            throw fail(e.getMessage());
        } catch (Exception e) {
            throw fail("error calling " + id.name() + ": " + e.getMessage());
        }
    }
}
