package dev.linekit.chaos;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import okhttp3.MediaType;
import okhttp3.OkHttpClient;
import okhttp3.Request;
import okhttp3.RequestBody;
import okhttp3.Response;

/** The Toxiproxy HTTP API (proxies, toxics, enable/disable), through its own client. */
final class Toxiproxy {
  private static final MediaType JSON = MediaType.get("application/json");
  private final String api;
  private final OkHttpClient http =
      new OkHttpClient.Builder().callTimeout(5, TimeUnit.SECONDS).build();

  Toxiproxy(String api) {
    this.api = api;
  }

  /** Creates proxy {@code name} listening on {@code listen}, forwarding to {@code upstream}. */
  void create(String name, String listen, String upstream) throws IOException {
    post("/proxies", "{\"name\":\"" + name + "\",\"listen\":\"" + listen + "\",\"upstream\":\""
        + upstream + "\",\"enabled\":true}");
  }

  /** Adds a toxic of {@code type} on the {@code stream} (upstream/downstream) of a proxy. */
  void toxic(String proxy, String type, String stream, String attributes) throws IOException {
    post("/proxies/" + proxy + "/toxics", "{\"name\":\"" + type + "_" + stream + "\",\"type\":\""
        + type + "\",\"stream\":\"" + stream + "\",\"toxicity\":1.0,\"attributes\":"
        + attributes + "}");
  }

  /** Disables (down: connections refused and existing ones closed) or enables a proxy. */
  void enabled(String proxy, boolean on) throws IOException {
    post("/proxies/" + proxy, "{\"enabled\":" + on + "}");
  }

  /** Enables every proxy and removes every toxic. */
  void reset() throws IOException {
    post("/reset", "");
  }

  private void post(String path, String body) throws IOException {
    Request r = new Request.Builder().url(api + path).post(RequestBody.create(body, JSON)).build();
    try (Response resp = http.newCall(r).execute()) {
      if (resp.code() >= 300 && resp.code() != 409) {
        throw new IOException("toxiproxy " + path + ": HTTP " + resp.code() + " "
            + (resp.body() == null ? "" : resp.body().string()));
      }
    }
  }
}
