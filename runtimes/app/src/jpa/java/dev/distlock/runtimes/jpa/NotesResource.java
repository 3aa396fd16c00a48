package dev.distlock.runtimes.jpa;

import dev.distlock.LockLostException;
import jakarta.inject.Inject;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.PUT;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;

/** The flush checks over HTTP, on the runtimes that have JPA (WildFly with Hibernate, Open Liberty with EclipseLink). */
@Path("/notes")
@Produces(MediaType.TEXT_PLAIN)
public class NotesResource {

    @Inject
    Notes notes;

    @PUT
    @Path("{id}/{text}")
    public String write(@PathParam("id") String id, @PathParam("text") String text) {
        notes.write(id, text);
        return text;
    }

    @GET
    @Path("{id}")
    public String read(@PathParam("id") String id) {
        return String.valueOf(notes.read(id));
    }

    /** @return {@code rolled back} when the check saw the loss after the flush, {@code committed} when it ran before */
    @POST
    @Path("{id}/lose-lock-during-flush/{text}")
    public String loseTheLockDuringTheFlush(@PathParam("id") String id, @PathParam("text") String text) {
        try {
            notes.rewriteLosingTheLockDuringTheFlush(id, text);
            return "no loss seen";
        } catch (LockLostException lost) {
            return lost.rolledBack() ? "rolled back" : "committed";
        }
    }

    /** @return the nanoseconds from distlock's check to the transaction's completion */
    @POST
    @Path("{id}/window/{text}")
    public String window(@PathParam("id") String id, @PathParam("text") String text) throws Exception {
        long[] window = {0};
        notes.rewriteMeasuringTheWindow(id, text, window);
        return Long.toString(window[0]);
    }
}
