package io.caravan.template.internal;

import io.caravan.template.TemplateException;
import io.caravan.template.internal.Node.*;
import io.caravan.template.internal.Token.Kind;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** Recursive-descent parser from tokens to {@link Tree}s: the top-level template and every {@code define}/{@code block}. */
public final class Parser {
    private static final Set<Kind> OPERAND_START = EnumSet.of(Kind.BOOL, Kind.CHAR, Kind.DOT, Kind.FIELD,
            Kind.IDENTIFIER, Kind.NUMBER, Kind.NIL, Kind.RAW_STRING, Kind.STRING, Kind.VARIABLE, Kind.LEFT_PAREN);

    private final String parseName;
    private final String source;
    private final Set<String> functions;
    private final int maxNesting;
    private final List<Token> tokens;
    private final Map<String, Tree> trees = new LinkedHashMap<>();
    private int i;
    private List<String> vars = new ArrayList<>(List.of("$"));
    private int rangeDepth;
    private int parenDepth;
    private int controlDepth;
    /** The keyword ("end" or "else") that ended the last {@link #itemList()}, and where. */
    private String stop;
    private int stopPos;

    private Parser(String parseName, String source, List<Token> tokens, Set<String> functions, int maxNesting) {
        this.parseName = parseName;
        this.source = source;
        this.tokens = tokens;
        this.functions = functions;
        this.maxNesting = maxNesting;
    }

    /**
     * Parses {@code text} as the template {@code name}; returns it (first) and the templates it defines, in order.
     */
    public static Map<String, Tree> parse(String name, String text, String left, String right, Set<String> functions,
            int maxNesting) throws TemplateException {
        try {
            List<Token> tokens = Lexer.lex(name, text, left, right);
            Parser p = new Parser(name, text, tokens, functions, maxNesting);
            Map<String, Tree> out = new LinkedHashMap<>();
            ListNode root = p.top();
            out.put(name, new Tree(name, name, text, root));
            for (Map.Entry<String, Tree> e : p.trees.entrySet()) {
                Tree old = out.get(e.getKey());
                if (old == null || !e.getValue().isEmpty() || old.isEmpty()) out.put(e.getKey(), e.getValue());
            }
            return out;
        } catch (ParseError e) {
            int[] lc = Tree.lineColumn(text, e.pos);
            throw new TemplateException("template: " + name + ":" + lc[0] + ":" + lc[1] + ": " + e.getMessage(), name,
                    lc[0], lc[1]);
        }
    }

    // ---- token helpers

    private Token next() { return tokens.get(Math.min(i++, tokens.size() - 1)); }

    private Token peek() { return tokens.get(Math.min(i, tokens.size() - 1)); }

    private void backup() { i--; }

    private Token nextNonSpace() {
        Token t = next();
        while (t.kind() == Kind.SPACE) t = next();
        return t;
    }

    private Token peekNonSpace() {
        Token t = nextNonSpace();
        backup();
        return t;
    }

    private ParseError error(int pos, String msg) { return new ParseError(pos, msg); }

    private ParseError unexpected(Token t, String context) {
        if (t.kind() == Kind.EOF) return error(t.pos(), "unexpected EOF in " + context);
        return error(t.pos(), "unexpected " + t.describe() + " in " + context);
    }

    private Token expect(Kind kind, String context) throws ParseError {
        Token t = nextNonSpace();
        if (t.kind() != kind) throw unexpected(t, context);
        return t;
    }

    // ---- structure

    private ListNode top() throws ParseError {
        List<Node> nodes = new ArrayList<>();
        while (peek().kind() != Kind.EOF) {
            if (peek().kind() == Kind.LEFT_DELIM) {
                int mark = i;
                next();
                Token t = nextNonSpace();
                if (t.kind() == Kind.KEYWORD && t.text().equals("define")) {
                    definition(t);
                    continue;
                }
                i = mark;
            }
            Node n = textOrAction();
            if (n == null) throw error(stopPos, "unexpected {{" + stop + "}}");
            nodes.add(n);
        }
        return new ListNode(0, nodes);
    }

    private void definition(Token defineTok) throws ParseError {
        Token name = nextNonSpace();
        if (name.kind() != Kind.STRING && name.kind() != Kind.RAW_STRING) throw unexpected(name, "define clause");
        expect(Kind.RIGHT_DELIM, "define clause");
        List<String> saved = vars;
        vars = new ArrayList<>(List.of("$"));
        ListNode body = itemList();
        vars = saved;
        if (!stop.equals("end")) throw error(stopPos, "unexpected {{else}} in define clause");
        addTree(GoFmt.unquote(name.text(), name.pos()), body);
    }

    private void addTree(String name, ListNode body) {
        Tree t = new Tree(name, parseName, source, body);
        Tree old = trees.get(name);
        if (old == null || !t.isEmpty() || old.isEmpty()) trees.put(name, t);
    }

    /** Nodes up to {@code {{end}}} or {@code {{else}}}, recorded in {@link #stop}. */
    private ListNode itemList() throws ParseError {
        int start = peek().pos();
        List<Node> nodes = new ArrayList<>();
        while (true) {
            if (peekNonSpace().kind() == Kind.EOF) throw error(peek().pos(), "unexpected EOF");
            Node n = textOrAction();
            if (n == null) return new ListNode(start, nodes);
            nodes.add(n);
        }
    }

    /** A text or action node, or null at {@code {{end}}}/{@code {{else}}} (see {@link #stop}). */
    private Node textOrAction() throws ParseError {
        Token t = nextNonSpace();
        if (t.kind() == Kind.TEXT) return new TextNode(t.pos(), t.text());
        if (t.kind() == Kind.LEFT_DELIM) return action();
        throw unexpected(t, "input");
    }

    private Node action() throws ParseError {
        Token t = nextNonSpace();
        if (t.kind() == Kind.KEYWORD) {
            switch (t.text()) {
                case "block": return blockControl(t);
                case "break": case "continue": return loopControl(t);
                case "else": stop = "else"; stopPos = t.pos(); return null;
                case "end":
                    expect(Kind.RIGHT_DELIM, "end");
                    stop = "end";
                    stopPos = t.pos();
                    return null;
                case "if": case "range": case "with": return control(t);
                case "template": return templateControl(t);
                default: throw unexpected(t, "command");
            }
        }
        backup();
        Token first = peek();
        return new ActionNode(first.pos(), pipeline("command", Kind.RIGHT_DELIM));
    }

    private Node loopControl(Token t) throws ParseError {
        Token after = nextNonSpace();
        if (after.kind() != Kind.RIGHT_DELIM) throw unexpected(after, "{{" + t.text() + "}}");
        if (rangeDepth == 0) throw error(t.pos(), "{{" + t.text() + "}} outside {{range}}");
        return t.text().equals("break") ? new BreakNode(t.pos()) : new ContinueNode(t.pos());
    }

    private Node control(Token kw) throws ParseError {
        String kind = kw.text();
        if (++controlDepth > maxNesting) throw error(kw.pos(), "max control structure depth exceeded");
        int mark = vars.size();
        PipeNode pipe = pipeline(kind, Kind.RIGHT_DELIM);
        if (kind.equals("range")) rangeDepth++;
        ListNode list = itemList();
        if (kind.equals("range")) rangeDepth--;
        ListNode elseList = null;
        if (stop.equals("else")) {
            Token after = peekNonSpace();
            if (!kind.equals("range") && after.kind() == Kind.KEYWORD && after.text().equals(kind)) {
                // "{{else if ...}}": a nested control that consumes the shared {{end}}
                Token nestedKw = nextNonSpace();
                elseList = new ListNode(nestedKw.pos(), List.of(control(nestedKw)));
            } else {
                expect(Kind.RIGHT_DELIM, "else");
                elseList = itemList();
                if (!stop.equals("end")) throw error(stopPos, "expected end; found {{else}}");
            }
        }
        vars.subList(mark, vars.size()).clear();
        controlDepth--;
        return new BranchNode(kw.pos(), kind, pipe, list, elseList);
    }

    private Node templateControl(Token kw) throws ParseError {
        Token name = nextNonSpace();
        if (name.kind() != Kind.STRING && name.kind() != Kind.RAW_STRING) throw unexpected(name, "template clause");
        PipeNode pipe = null;
        if (nextNonSpace().kind() != Kind.RIGHT_DELIM) {
            backup();
            pipe = pipeline("template clause", Kind.RIGHT_DELIM);
        }
        return new TemplateNode(kw.pos(), GoFmt.unquote(name.text(), name.pos()), pipe);
    }

    private Node blockControl(Token kw) throws ParseError {
        Token name = nextNonSpace();
        if (name.kind() != Kind.STRING && name.kind() != Kind.RAW_STRING) throw unexpected(name, "block clause");
        PipeNode pipe = pipeline("block clause", Kind.RIGHT_DELIM);
        List<String> saved = vars;
        vars = new ArrayList<>(List.of("$"));
        int savedRange = rangeDepth;
        rangeDepth = 0;
        ListNode body = itemList();
        vars = saved;
        rangeDepth = savedRange;
        if (!stop.equals("end")) throw error(stopPos, "unexpected {{else}} in block clause");
        String n = GoFmt.unquote(name.text(), name.pos());
        addTree(n, body);
        return new TemplateNode(kw.pos(), n, pipe);
    }

    // ---- pipelines

    private PipeNode pipeline(String context, Kind end) throws ParseError {
        List<VariableNode> decl = new ArrayList<>();
        boolean isAssign = false;
        int pos = peekNonSpace().pos();
        Token v = peekNonSpace();
        if (v.kind() == Kind.VARIABLE) {
            int mark = i;
            nextNonSpace();
            Token n = peekNonSpace();
            if (n.kind() == Kind.DECLARE || n.kind() == Kind.ASSIGN) {
                nextNonSpace();
                isAssign = n.kind() == Kind.ASSIGN;
                decl.add(new VariableNode(v.pos(), List.of(v.text())));
                vars.add(v.text());
            } else if (n.kind() == Kind.COMMA) {
                nextNonSpace();
                decl.add(new VariableNode(v.pos(), List.of(v.text())));
                vars.add(v.text());
                if (!context.equals("range")) throw error(n.pos(), "too many declarations in " + context);
                Token v2 = nextNonSpace();
                if (v2.kind() != Kind.VARIABLE) throw error(v2.pos(), "missing variable in " + context);
                Token op = nextNonSpace();
                if (op.kind() == Kind.COMMA) throw error(op.pos(), "too many declarations in " + context);
                if (op.kind() != Kind.DECLARE && op.kind() != Kind.ASSIGN) throw unexpected(op, context);
                isAssign = op.kind() == Kind.ASSIGN;
                decl.add(new VariableNode(v2.pos(), List.of(v2.text())));
                vars.add(v2.text());
            } else {
                i = mark;
            }
        }
        List<CommandNode> cmds = new ArrayList<>();
        while (true) {
            Token t = nextNonSpace();
            if (t.kind() == end) {
                checkPipeline(cmds, context, t);
                return new PipeNode(pos, isAssign, decl, cmds);
            }
            if (!OPERAND_START.contains(t.kind())) throw unexpected(t, context);
            backup();
            cmds.add(command());
        }
    }

    private void checkPipeline(List<CommandNode> cmds, String context, Token at) throws ParseError {
        if (cmds.isEmpty()) throw error(at.pos(), "missing value for " + context);
        for (int k = 1; k < cmds.size(); k++) {
            Node first = cmds.get(k).args().get(0);
            if (first instanceof BoolNode || first instanceof DotNode || first instanceof NilNode
                    || first instanceof NumberNode || first instanceof StringNode) {
                throw error(first.pos(), "non executable command in pipeline stage " + (k + 1));
            }
        }
    }

    private CommandNode command() throws ParseError {
        int pos = peekNonSpace().pos();
        List<Node> args = new ArrayList<>();
        while (true) {
            peekNonSpace();
            Node operand = operand();
            if (operand != null) args.add(operand);
            Token t = next();
            if (t.kind() == Kind.SPACE) continue;
            if (t.kind() == Kind.RIGHT_DELIM || t.kind() == Kind.RIGHT_PAREN) backup();
            else if (t.kind() != Kind.PIPE) throw unexpected(t, "operand");
            break;
        }
        if (args.isEmpty()) throw error(pos, "empty command");
        return new CommandNode(pos, args);
    }

    private Node operand() throws ParseError {
        Node node = term();
        if (node == null) return null;
        if (peek().kind() == Kind.FIELD) {
            int pos = peek().pos();
            List<String> fields = new ArrayList<>();
            while (peek().kind() == Kind.FIELD) fields.add(next().text().substring(1));
            if (node instanceof FieldNode f) {
                List<String> all = new ArrayList<>(f.ident());
                all.addAll(fields);
                return new FieldNode(f.pos(), all);
            }
            if (node instanceof VariableNode v) {
                List<String> all = new ArrayList<>(v.ident());
                all.addAll(fields);
                return new VariableNode(v.pos(), all);
            }
            if (node instanceof BoolNode || node instanceof StringNode || node instanceof NumberNode
                    || node instanceof NilNode || node instanceof DotNode) {
                throw error(pos, "unexpected . after term " + GoFmt.quote(node.print(false)));
            }
            return new ChainNode(pos, node, fields);
        }
        return node;
    }

    private Node term() throws ParseError {
        Token t = nextNonSpace();
        switch (t.kind()) {
            case IDENTIFIER:
                if (!functions.contains(t.text())) throw error(t.pos(), "function " + GoFmt.quote(t.text()) + " not defined");
                return new IdentifierNode(t.pos(), t.text());
            case DOT: return new DotNode(t.pos());
            case NIL: return new NilNode(t.pos());
            case VARIABLE:
                if (!vars.contains(t.text())) throw error(t.pos(), "undefined variable " + GoFmt.quote(t.text()));
                return new VariableNode(t.pos(), List.of(t.text()));
            case FIELD: return new FieldNode(t.pos(), List.of(t.text().substring(1)));
            case BOOL: return new BoolNode(t.pos(), t.text().equals("true"));
            case NUMBER: return number(t);
            case CHAR: {
                String s = GoFmt.unquoteChar(t.text(), t.pos());
                if (s.codePointCount(0, s.length()) != 1) throw error(t.pos(), "malformed character constant: " + t.text());
                return new NumberNode(t.pos(), t.text(), (long) s.codePointAt(0));
            }
            case LEFT_PAREN: {
                if (++parenDepth > maxNesting) throw error(t.pos(), "max expression depth exceeded");
                PipeNode p = pipeline("parenthesized pipeline", Kind.RIGHT_PAREN);
                parenDepth--;
                return p;
            }
            case STRING: case RAW_STRING:
                return new StringNode(t.pos(), t.text(), GoFmt.unquote(t.text(), t.pos()));
            default:
                backup();
                return null;
        }
    }

    private NumberNode number(Token t) throws ParseError {
        String text = t.text();
        if (text.endsWith("i")) return new NumberNode(t.pos(), text, null);
        Object value = GoFmt.parseNumber(text);
        if (value == null) throw error(t.pos(), "illegal number syntax: " + GoFmt.quote(text));
        return new NumberNode(t.pos(), text, value);
    }
}
