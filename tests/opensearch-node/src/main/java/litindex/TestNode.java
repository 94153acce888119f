package litindex;

import java.nio.file.Path;
import java.util.Collection;
import java.util.List;
import java.util.Map;

import org.opensearch.analysis.common.CommonAnalysisPlugin;
import org.opensearch.common.settings.Settings;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;
import org.opensearch.transport.Netty4Plugin;

/**
 * One OpenSearch node on 127.0.0.1 for litindex's tests.
 *
 * Usage: TestNode HOME HTTP_PORT. HOME is a fresh directory (path.home and
 * path.data under it). The node stops when its standard input closes or the
 * process is killed: the Rust harness owns the process and kills it in Drop.
 */
public final class TestNode {
    /**
     * A Node with plugins from the classpath. (The test framework's MockNode
     * does the same but pulls in randomizedtesting, whose presence makes
     * Node ask for a test runner's random context.)
     */
    static final class PluginNode extends Node {
        PluginNode(Settings settings, Collection<Class<? extends Plugin>> plugins) {
            super(InternalSettingsPreparer.prepareEnvironment(settings, Map.of(), null, () -> "litindex-test-node"), plugins, true);
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: TestNode HOME HTTP_PORT");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        Settings settings = Settings.builder()
            .put("path.home", home.toString())
            .put("path.data", home.resolve("data").toString())
            .put("cluster.name", "litindex-test")
            .put("node.name", "litindex-test-node")
            .put("discovery.type", "single-node")
            .put("network.host", "127.0.0.1")
            .put("http.port", args[1])
            .put("transport.port", "0")
            .put("cluster.routing.allocation.disk.threshold_enabled", false)
            .put("action.auto_create_index", false)
            .build();
        Node node = new PluginNode(settings, List.of(Netty4Plugin.class, CommonAnalysisPlugin.class));
        node.start();
        System.out.println("litindex-test-node started");
        System.out.flush();
        // Stop when the parent closes our stdin (or kills us).
        while (System.in.read() != -1) {
            // ignore input
        }
        node.close();
        System.exit(0);
    }
}
