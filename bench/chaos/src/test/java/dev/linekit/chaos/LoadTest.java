package dev.linekit.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.SocketException;
import javax.net.ssl.SSLPeerUnverifiedException;
import org.junit.jupiter.api.Test;

class LoadTest {
  @Test
  void aFailureNamesTheExceptionsItSuppressed() {
    // OkHttp's shape when the first address's handshake is refused and the second resets.
    SocketException reset = new SocketException("Connection reset");
    reset.addSuppressed(new SSLPeerUnverifiedException("Hostname not verified"));
    String name = Load.errorName(reset);
    assertEquals("SocketException+SSLPeerUnverifiedException", name);
    assertTrue(Load.names(name, "SSLPeerUnverifiedException"));
    assertTrue(Load.names(name, "SocketException"));
    assertFalse(Load.names(name, "SSLHandshakeException"));
  }

  @Test
  void aPlainFailureIsItsClassAlone() {
    String name = Load.errorName(new SSLPeerUnverifiedException("Hostname not verified"));
    assertEquals("SSLPeerUnverifiedException", name);
    assertTrue(Load.names(name, "SSLPeerUnverifiedException"));
    assertFalse(Load.names(name, "SSLPeerUnverified"));
  }
}
