package dev.distlock.example.shop;

import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/** An RFC 9457 problem body: what every error of the API answers with. */
public record Problem(String type, String title, int status, String detail) {

    public static final MediaType MEDIA_TYPE = new MediaType("application", "problem+json");

    static Problem of(int status, String title, String detail) {
        return new Problem("about:blank", title, status, detail);
    }

    Response.ResponseBuilder response() {
        return Response.status(status).type(MEDIA_TYPE).entity(this);
    }
}
