package dev.distlock.runtimes.jpa;

import jakarta.persistence.Entity;
import jakarta.persistence.EntityListeners;
import jakarta.persistence.Id;

/** A row the checks change under a lock; {@link FlushProbe} sees its UPDATE as the provider flushes it. */
@Entity
@EntityListeners(FlushProbe.class)
public class Note {

    @Id
    private String id;
    private String text;

    protected Note() {
    }

    public Note(String id, String text) {
        this.id = id;
        this.text = text;
    }

    public String getText() {
        return text;
    }

    public void setText(String text) {
        this.text = text;
    }
}
