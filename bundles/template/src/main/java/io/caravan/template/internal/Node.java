package io.caravan.template.internal;

import java.util.List;
import java.util.stream.Collectors;

/** The parse tree. {@link #toString()} prints a node back as Go's parse package does (text quoted when asked). */
sealed interface Node {
    int pos();

    String print(boolean quoteText);

    record ListNode(int pos, List<Node> nodes) implements Node {
        public String print(boolean q) { return nodes.stream().map(n -> n.print(q)).collect(Collectors.joining()); }
    }

    record TextNode(int pos, String text) implements Node {
        public String print(boolean q) { return q ? GoFmt.quote(text) : text; }
    }

    /** {@code decl} lists the variables a pipeline declares ({@code :=}) or assigns ({@code =}). */
    record PipeNode(int pos, boolean isAssign, List<VariableNode> decl, List<CommandNode> cmds) implements Node {
        public String print(boolean q) {
            StringBuilder sb = new StringBuilder();
            if (!decl.isEmpty()) {
                sb.append(decl.stream().map(v -> v.print(q)).collect(Collectors.joining(", ")));
                sb.append(isAssign ? " = " : " := ");
            }
            sb.append(cmds.stream().map(c -> c.print(q)).collect(Collectors.joining(" | ")));
            return sb.toString();
        }
    }

    record ActionNode(int pos, PipeNode pipe) implements Node {
        public String print(boolean q) { return "{{" + pipe.print(q) + "}}"; }
    }

    record CommandNode(int pos, List<Node> args) implements Node {
        public String print(boolean q) {
            return args.stream().map(a -> a instanceof PipeNode ? "(" + a.print(q) + ")" : a.print(q))
                    .collect(Collectors.joining(" "));
        }
    }

    record IdentifierNode(int pos, String name) implements Node {
        public String print(boolean q) { return name; }
    }

    /** {@code $x.A.B}: {@code ident} holds the variable name then the field names. */
    record VariableNode(int pos, List<String> ident) implements Node {
        public String print(boolean q) { return String.join(".", ident); }
    }

    record DotNode(int pos) implements Node {
        public String print(boolean q) { return "."; }
    }

    record NilNode(int pos) implements Node {
        public String print(boolean q) { return "nil"; }
    }

    record FieldNode(int pos, List<String> ident) implements Node {
        public String print(boolean q) { return "." + String.join(".", ident); }
    }

    /** A term followed by fields: {@code (pipeline).A.B} or {@code func.A}. */
    record ChainNode(int pos, Node node, List<String> fields) implements Node {
        public String print(boolean q) {
            String head = node instanceof PipeNode ? "(" + node.print(q) + ")" : node.print(q);
            return head + "." + String.join(".", fields);
        }
    }

    record BoolNode(int pos, boolean value) implements Node {
        public String print(boolean q) { return Boolean.toString(value); }
    }

    /** {@code value} is a Long, a Double, or null for a complex constant (parsed, not evaluable). */
    record NumberNode(int pos, String text, Object value) implements Node {
        public String print(boolean q) { return text; }
    }

    record StringNode(int pos, String quoted, String text) implements Node {
        public String print(boolean q) { return quoted; }
    }

    record BreakNode(int pos) implements Node {
        public String print(boolean q) { return "{{break}}"; }
    }

    record ContinueNode(int pos) implements Node {
        public String print(boolean q) { return "{{continue}}"; }
    }

    /** {@code kind} is "if", "range" or "with"; {@code elseList} may be null. */
    record BranchNode(int pos, String kind, PipeNode pipe, ListNode list, ListNode elseList) implements Node {
        public String print(boolean q) {
            String s = "{{" + kind + " " + pipe.print(q) + "}}" + list.print(q);
            if (elseList != null) s += "{{else}}" + elseList.print(q);
            return s + "{{end}}";
        }
    }

    record TemplateNode(int pos, String name, PipeNode pipe) implements Node {
        public String print(boolean q) {
            return "{{template " + GoFmt.quote(name) + (pipe == null ? "" : " " + pipe.print(q)) + "}}";
        }
    }
}
