// Takes the steps of a client exam (docs/exam.md) with java.net.http.HttpClient,
// as an application uses it: one client with redirects followed (NORMAL: the
// default is NEVER, and the redirect steps ask the caller to follow) and a
// java.net.CookieManager (the default has no cookie handler); no retry, no
// cache; HttpRequest.timeout(2 s) where a step asks for a deadline.
// Reads `name url` lines on stdin; scripts/exam/run.ts opens the exam, feeds
// the lines and prints the grade (single-file source, run with `java ExamSteps.java`):
//   node dist/scripts/exam/run.js java [profile] [hub URL]
// The JDK (17) has no resolver hook: run.js names the steps' *.localhost hosts
// in a hosts file of its own (-Djdk.net.hosts.file), so the https step's host
// reaches the loopback on a machine whose resolver does not.
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.CookieManager;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

public class ExamSteps {
  /** The caller's deadline for the steps that ask for one (stall, slow-headers, drip). */
  static final Duration STEP_TIMEOUT = Duration.ofSeconds(2);
  static final Map<String, String> FORM = Map.of("Content-Type", "application/x-www-form-urlencoded");
  static HttpClient client;

  /** One request, its body read to the end; an error is the client's answer to a lie (the service records it). */
  static void send(String url, String method, Map<String, String> headers, String body, Duration timeout, Consumer<String> onLine) {
    try {
      HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url));
      headers.forEach(request::header);
      if (timeout != null) request.timeout(timeout);
      request.method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
      HttpResponse<InputStream> response = client.send(request.build(), HttpResponse.BodyHandlers.ofInputStream());
      try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
        for (String line; (line = lines.readLine()) != null; ) if (onLine != null) onLine.accept(line);
      }
    } catch (Exception | Error e) {
      // recorded by the service
    }
  }

  static void get(String url) {
    send(url, "GET", Map.of(), null, null, null);
  }

  /** Reads the stream, then reconnects once after retry: with Last-Event-ID, as the caller must (no SSE client in the JDK). */
  static void eventStream(String url) throws InterruptedException {
    String[] pending = {null};
    String[] last = {null};
    int[] retry = {3000};
    send(url, "GET", Map.of("Accept", "text/event-stream"), null, null, line -> {
      // Only a dispatched event's id becomes the last event id.
      if (line.isEmpty()) {
        if (pending[0] != null) last[0] = pending[0];
      } else if (line.startsWith("id:")) {
        pending[0] = line.substring(3).trim();
      } else if (line.startsWith("retry:") && line.substring(6).trim().matches("\\d+")) {
        retry[0] = Integer.parseInt(line.substring(6).trim());
      }
    });
    Thread.sleep(retry[0] + 50);
    send(url, "GET", last[0] == null ? Map.of("Accept", "text/event-stream") : Map.of("Accept", "text/event-stream", "Last-Event-ID", last[0]), null, null, null);
  }

  static void take(String name, String url) throws InterruptedException {
    switch (name) {
      case "redirect-302", "redirect-303", "redirect-307", "redirect-308" -> send(url, "POST", FORM, "a=1&b=2", null, null);
      case "post-503" -> send(url, "POST", FORM, "a=1", null, null);
      case "cross-host-authorization", "https-downgrade" -> send(url, "GET", Map.of("Authorization", "Bearer exam-token"), null, null, null);
      case "stall", "slow-headers", "drip" -> send(url, "GET", Map.of(), null, STEP_TIMEOUT, null);
      case "keepalive-lie", "etag", "last-modified", "no-store" -> {
        get(url);
        get(url);
      }
      case "vary" -> {
        send(url, "GET", Map.of("Accept-Encoding", "gzip"), null, null, null);
        send(url, "GET", Map.of("Accept-Encoding", "identity"), null, null, null);
      }
      case "sse-resume" -> eventStream(url);
      // The retry steps, the loop, the cookie hop, the download: the client as it is.
      default -> get(url);
    }
  }

  /** A TLS context trusting the published root (EXAM_CA_FILE) alone. */
  static SSLContext trusting(String file) throws Exception {
    KeyStore roots = KeyStore.getInstance(KeyStore.getDefaultType());
    roots.load(null, null);
    try (InputStream pem = Files.newInputStream(Path.of(file))) {
      roots.setCertificateEntry("exam-root", CertificateFactory.getInstance("X.509").generateCertificate(pem));
    }
    TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trust.init(roots);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, trust.getTrustManagers(), null);
    return context;
  }

  public static void main(String[] args) throws Exception {
    HttpClient.Builder builder = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NORMAL).cookieHandler(new CookieManager());
    String ca = System.getenv("EXAM_CA_FILE");
    if (ca != null && !ca.isEmpty()) builder.sslContext(trusting(ca));
    client = builder.build();
    List<Thread> steps = new ArrayList<>();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      String[] fields = line.trim().split("\\s+");
      if (fields.length != 2) continue;
      Thread step = new Thread(() -> {
        try {
          take(fields[0], fields[1]);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      step.start();
      steps.add(step);
    }
    for (Thread step : steps) step.join();
    System.exit(0);
  }
}
