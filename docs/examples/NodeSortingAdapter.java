// A node-sorting adapter in Java: Hadoop's ResourceUsageMultiNodeLookupPolicy order (least
// allocated resource first, memory then vcores; ties by NodeId: the host as a string, then the
// port as a number) behind the yarnspec process protocol (docs/validating.md). No libraries:
// a small JSON reader and writer are at the bottom. Validate it with
//   yarnspec validate node-sorting --impl "process:java docs/examples/NodeSortingAdapter.java"
// (Java 11+ runs a single source file directly) or compile it first with javac.

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

public final class NodeSortingAdapter {

    /** One node of the request. */
    record Node(String id, long memory, long vcores) {
        String host() {
            int colon = id.lastIndexOf(':');
            return colon < 0 ? id : id.substring(0, colon);
        }

        long port() {
            int colon = id.lastIndexOf(':');
            String port = colon < 0 ? "" : id.substring(colon + 1);
            return !port.isEmpty() && port.chars().allMatch(Character::isDigit) ? Long.parseLong(port) : 0;
        }
    }

    static final Comparator<Node> ORDER = Comparator.comparingLong(Node::memory)
            .thenComparingLong(Node::vcores)
            .thenComparing(Node::host)
            .thenComparingLong(Node::port);

    static Object handle(String op, Map<String, Object> input) {
        if (op.equals("hello")) {
            Map<String, Object> hello = new LinkedHashMap<>();
            hello.put("name", "NodeSortingAdapter.java");
            hello.put("version", "1");
            hello.put("contracts", List.of("node-sorting"));
            return hello;
        }
        if (!op.equals("sort_nodes")) {
            throw new IllegalArgumentException("unknown op " + op);
        }
        List<Node> nodes = new ArrayList<>();
        for (Object raw : (List<?>) input.get("nodes")) {
            Map<?, ?> node = (Map<?, ?>) raw;
            nodes.add(new Node((String) node.get("node_id"), ((Number) node.get("allocated_memory")).longValue(),
                    ((Number) node.get("allocated_vcores")).longValue()));
        }
        if (nodes.stream().map(Node::id).distinct().count() != nodes.size()) {
            throw new IllegalArgumentException("node ids are not unique");
        }
        nodes.sort(ORDER);
        return Map.of("order", nodes.stream().map(Node::id).toList());
    }

    @SuppressWarnings("unchecked")
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            Map<String, Object> request = (Map<String, Object>) new Json(line).value();
            StringBuilder answer = new StringBuilder("{\"id\":").append(request.get("id"));
            try {
                Object output = handle((String) request.get("op"), (Map<String, Object>) request.get("input"));
                Json.write(answer.append(",\"output\":"), output);
            } catch (IllegalArgumentException | ClassCastException | NullPointerException e) {
                Json.write(answer.append(",\"error\":"), String.valueOf(e.getMessage()));
            }
            System.out.println(answer.append('}'));
            System.out.flush();
        }
    }

    /** Just enough JSON: objects, arrays, strings, integers, true/false/null. */
    static final class Json {
        private final String text;
        private int at;

        Json(String text) {
            this.text = text;
        }

        Object value() {
            skip();
            char c = text.charAt(at);
            if (c == '{') {
                Map<String, Object> object = new LinkedHashMap<>();
                at++;
                for (skip(); text.charAt(at) != '}'; skip()) {
                    String key = (String) value();
                    skip();
                    at++; // ':'
                    object.put(key, value());
                    skip();
                    if (text.charAt(at) == ',') at++;
                }
                at++;
                return object;
            }
            if (c == '[') {
                List<Object> array = new ArrayList<>();
                at++;
                for (skip(); text.charAt(at) != ']'; skip()) {
                    array.add(value());
                    skip();
                    if (text.charAt(at) == ',') at++;
                }
                at++;
                return array;
            }
            if (c == '"') {
                StringBuilder s = new StringBuilder();
                for (at++; text.charAt(at) != '"'; at++) {
                    char d = text.charAt(at);
                    if (d == '\\') {
                        char e = text.charAt(++at);
                        if (e == 'u') {
                            s.append((char) Integer.parseInt(text.substring(at + 1, at + 5), 16));
                            at += 4;
                        } else {
                            s.append(switch (e) { case 'n' -> '\n'; case 't' -> '\t'; case 'r' -> '\r'; case 'b' -> '\b'; case 'f' -> '\f'; default -> e; });
                        }
                    } else {
                        s.append(d);
                    }
                }
                at++;
                return s.toString();
            }
            int start = at;
            while (at < text.length() && ",}] ".indexOf(text.charAt(at)) < 0) at++;
            String word = text.substring(start, at);
            return switch (word) {
                case "true" -> Boolean.TRUE;
                case "false" -> Boolean.FALSE;
                case "null" -> null;
                default -> word.contains(".") || word.contains("e") || word.contains("E") ? (Object) Double.parseDouble(word) : (Object) Long.parseLong(word);
            };
        }

        private void skip() {
            while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
        }

        static void write(StringBuilder out, Object value) {
            if (value instanceof Map<?, ?> map) {
                out.append('{');
                String sep = "";
                for (Map.Entry<?, ?> entry : map.entrySet()) {
                    write(out.append(sep), String.valueOf(entry.getKey()));
                    write(out.append(':'), entry.getValue());
                    sep = ",";
                }
                out.append('}');
            } else if (value instanceof List<?> list) {
                out.append('[');
                String sep = "";
                for (Object item : list) {
                    write(out.append(sep), item);
                    sep = ",";
                }
                out.append(']');
            } else if (value instanceof String s) {
                out.append('"');
                for (char c : s.toCharArray()) {
                    if (c == '"' || c == '\\') out.append('\\').append(c);
                    else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
                    else out.append(c);
                }
                out.append('"');
            } else {
                out.append(value);
            }
        }
    }
}
