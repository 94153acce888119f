//! One OpenSearch node for the tests: the launcher in `tests/opensearch-node/`
//! (built by `mvn -q -B package dependency:build-classpath`, as `.ci/run`
//! does) started on a free 127.0.0.1 port with its home in a temporary
//! directory, waited for until `_cluster/health` is yellow or green, and
//! killed when the [`Node`] is dropped (also when a test panics). The
//! launcher also stops by itself when its standard input closes, so a
//! killed test process leaves no node behind.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// `LITINDEX_REQUIRE_OPENSEARCH=1`: a test that would skip for want of Java,
/// Maven's build of the launcher or a node that starts fails instead (CI sets it).
pub fn required() -> bool {
    std::env::var("LITINDEX_REQUIRE_OPENSEARCH").is_ok_and(|v| v == "1")
}

/// Skips for want of `what`, or fails under `LITINDEX_REQUIRE_OPENSEARCH=1`.
pub fn skip(what: &str) {
    assert!(!required(), "LITINDEX_REQUIRE_OPENSEARCH=1, but {what}");
    eprintln!("skipping the OpenSearch tests: {what}");
}

/// A running node.
pub struct Node {
    child: Child,
    pub port: u16,
    /// `path.home` and the log (`node.log`).
    home: tempfile::TempDir,
    /// Seconds from the JVM's start to a yellow or green cluster.
    pub startup_s: f64,
}

fn launcher() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/opensearch-node")
}

impl Node {
    /// Starts a node, or says why not (after [`skip`]) with `None`.
    pub fn start() -> Option<Node> {
        let dir = launcher();
        let classes = dir.join("target/classes/litindex/TestNode.class");
        let classpath = dir.join("target/classpath.txt");
        if Command::new("java").arg("-version").output().is_err() {
            skip("`java` is not installed (Debian: openjdk-17-jre-headless)");
            return None;
        }
        if !classes.exists() || !classpath.exists() {
            skip(&format!(
                "the launcher is not built: run `mvn -q -B package dependency:build-classpath` in {}",
                dir.display()
            ));
            return None;
        }
        let deps = std::fs::read_to_string(&classpath).expect("read classpath.txt");
        let port = free_port();
        let home = tempfile::tempdir().expect("temp dir");
        let log = std::fs::File::create(home.path().join("node.log")).expect("node.log");
        let started = Instant::now();
        let child = Command::new("java")
            .args(["-Xms512m", "-Xmx512m", "-XX:+UseSerialGC", "-cp"])
            .arg(format!("{}:{}", dir.join("target/classes").display(), deps.trim()))
            .arg("litindex.TestNode")
            .arg(home.path())
            .arg(port.to_string())
            .stdin(Stdio::piped())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("start java");
        let mut node = Node { child, port, home, startup_s: 0.0 };
        let deadline = started + Duration::from_secs(120);
        let agent: ureq::Agent =
            ureq::Agent::config_builder().timeout_global(Some(Duration::from_secs(5))).build().into();
        loop {
            if let Ok(Some(status)) = node.child.try_wait() {
                panic!("the OpenSearch node exited ({status}) before it was up; its log:\n{}", node.log_tail());
            }
            let url = format!("http://127.0.0.1:{port}/_cluster/health");
            if let Ok(mut r) = agent.get(&url).call() {
                let body = r.body_mut().read_to_string().unwrap_or_default();
                if body.contains("\"status\":\"green\"") || body.contains("\"status\":\"yellow\"") {
                    break;
                }
            }
            assert!(
                Instant::now() < deadline,
                "the OpenSearch node was not up within 120 s; its log:\n{}",
                node.log_tail()
            );
            std::thread::sleep(Duration::from_millis(250));
        }
        node.startup_s = started.elapsed().as_secs_f64();
        eprintln!("OpenSearch node up on 127.0.0.1:{port} in {:.1} s", node.startup_s);
        Some(node)
    }

    /// `127.0.0.1:PORT`.
    pub fn host(&self) -> String {
        format!("127.0.0.1:{}", self.port)
    }

    /// The last lines of the node's log.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.home.path().join("node.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(40)..].join("\n")
    }
}

impl Drop for Node {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A port nothing listens on now (the OS's pick for a listener, closed).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").expect("bind").local_addr().expect("addr").port()
}
