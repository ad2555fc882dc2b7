// Takes the steps of a client exam (docs/exam.md) with Go's net/http, as an
// application uses it: one http.Client on the default transport (pooling, a
// replay of an idempotent request on a dead pooled connection), redirects
// followed (10 at most), the standard library's cookie jar (the default client
// has none), no retry; a 2 s context deadline where a step asks for one.
// Reads `name url` lines on stdin; scripts/exam/run.ts builds this file into
// a temporary directory, opens the exam, feeds the lines and prints the grade:
//   node dist/scripts/exam/run.js go [profile] [hub URL]
package main

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The caller's deadline for the steps that ask for one (stall, slow-headers, drip).
const stepTimeout = 2 * time.Second

type call struct {
	method  string
	headers map[string]string
	body    string
	timeout time.Duration
	onChunk func([]byte)
}

func send(client *http.Client, url string, c call) {
	ctx := context.Background()
	if c.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.timeout)
		defer cancel()
	}
	method := c.method
	if method == "" {
		method = http.MethodGet
	}
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, body)
	if err != nil {
		return
	}
	for name, value := range c.headers {
		req.Header.Set(name, value)
	}
	// An error is the client's answer to a lie: the service records what happened.
	res, err := client.Do(req)
	if err != nil {
		return
	}
	defer res.Body.Close()
	buf := make([]byte, 4096)
	for {
		n, err := res.Body.Read(buf)
		if n > 0 && c.onChunk != nil {
			c.onChunk(buf[:n])
		}
		if err != nil {
			return
		}
	}
}

var form = map[string]string{"Content-Type": "application/x-www-form-urlencoded"}

// eventStream reads the stream, then reconnects once after retry: with Last-Event-ID, as the caller must.
func eventStream(client *http.Client, url string) {
	var buffer, pending, last string
	retry := 3000
	send(client, url, call{headers: map[string]string{"Accept": "text/event-stream"}, onChunk: func(chunk []byte) {
		buffer += string(chunk)
		for {
			end := strings.IndexByte(buffer, '\n')
			if end < 0 {
				return
			}
			line := strings.TrimSuffix(buffer[:end], "\r")
			buffer = buffer[end+1:]
			switch {
			case line == "":
				// Only a dispatched event's id becomes the last event id.
				if pending != "" {
					last = pending
				}
			case strings.HasPrefix(line, "id:"):
				pending = strings.TrimSpace(line[3:])
			case strings.HasPrefix(line, "retry:"):
				if ms, err := strconv.Atoi(strings.TrimSpace(line[6:])); err == nil {
					retry = ms
				}
			}
		}
	}})
	time.Sleep(time.Duration(retry+50) * time.Millisecond)
	headers := map[string]string{"Accept": "text/event-stream"}
	if last != "" {
		headers["Last-Event-ID"] = last
	}
	send(client, url, call{headers: headers})
}

func take(client *http.Client, name, url string) {
	switch name {
	case "redirect-302", "redirect-303", "redirect-307", "redirect-308":
		send(client, url, call{method: http.MethodPost, headers: form, body: "a=1&b=2"})
	case "post-503":
		send(client, url, call{method: http.MethodPost, headers: form, body: "a=1"})
	case "cross-host-authorization", "https-downgrade":
		send(client, url, call{headers: map[string]string{"Authorization": "Bearer exam-token"}})
	case "stall", "slow-headers", "drip":
		send(client, url, call{timeout: stepTimeout})
	case "keepalive-lie", "etag", "last-modified", "no-store":
		send(client, url, call{})
		send(client, url, call{})
	case "vary":
		send(client, url, call{headers: map[string]string{"Accept-Encoding": "gzip"}})
		send(client, url, call{headers: map[string]string{"Accept-Encoding": "identity"}})
	case "sse-resume":
		eventStream(client, url)
	default:
		// The retry steps, the loop, the cookie hop, the download: the client as it is.
		send(client, url, call{})
	}
}

// loopbackDial dials *.localhost names on the loopback (RFC 6761 §6.3), as curl
// and browsers resolve them by themselves; Go's resolver reads /etc/hosts and
// DNS, which here do not. It is the hosts line a user would add, kept inside
// the runner; every other name is dialled as the default transport does.
func loopbackDial(dialer *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if host, port, err := net.SplitHostPort(addr); err == nil && strings.HasSuffix(host, ".localhost") {
			addr = net.JoinHostPort("127.0.0.1", port)
		}
		return dialer.DialContext(ctx, network, addr)
	}
}

func main() {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	// The default transport's dialer settings (30 s connect timeout, 30 s keep-alive).
	transport.DialContext = loopbackDial(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second})
	if file := os.Getenv("EXAM_CA_FILE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			panic(err)
		}
		roots := x509.NewCertPool()
		roots.AppendCertsFromPEM(pem)
		transport.TLSClientConfig = &tls.Config{RootCAs: roots}
	}
	jar, _ := cookiejar.New(nil)
	client := &http.Client{Transport: transport, Jar: jar}
	var steps sync.WaitGroup
	lines := bufio.NewScanner(os.Stdin)
	lines.Buffer(make([]byte, 64*1024), 1024*1024)
	for lines.Scan() {
		fields := strings.Fields(lines.Text())
		if len(fields) != 2 {
			continue
		}
		steps.Add(1)
		go func(name, url string) {
			defer steps.Done()
			take(client, name, url)
		}(fields[0], fields[1])
	}
	steps.Wait()
}
