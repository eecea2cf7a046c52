package auth

import (
	"crypto/sha256"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The cache holds at most its bound, dropping an expired entry first
// when full, and forgets an entry at its time.
func TestIDCacheBounds(t *testing.T) {
	c := &idCache{max: 3, m: map[[sha256.Size]byte]cached{}}
	now := time.Now()
	key := func(i int) [sha256.Size]byte { return sha256.Sum256(fmt.Append(nil, i)) }
	c.put(key(0), cached{id: &Identity{Subject: "expired"}, until: now.Add(-time.Second)})
	for i := 1; i < 3; i++ {
		c.put(key(i), cached{id: &Identity{Subject: fmt.Sprint(i)}, until: now.Add(time.Hour)})
	}
	c.put(key(3), cached{id: &Identity{Subject: "3"}, until: now.Add(time.Hour)})
	assert.Equal(t, 3, c.len())
	_, ok := c.m[key(0)]
	assert.False(t, ok, "the expired entry went first")
	for i := 4; i < 100; i++ {
		c.put(key(i), cached{id: &Identity{Subject: fmt.Sprint(i)}, until: now.Add(time.Hour)})
		assert.LessOrEqual(t, c.len(), 3)
	}
	assert.Equal(t, "99", c.get(key(99), now).Subject)
	assert.Nil(t, c.get(key(99), now.Add(time.Hour)), "forgotten at its time")
	assert.Equal(t, 2, c.len())
	var none *idCache
	none.put(key(1), cached{id: &Identity{}})
	assert.Nil(t, none.get(key(1), now))
}

// An identity is remembered for CacheTTL, never past its token's exp.
func TestIntrospectionCacheTTL(t *testing.T) {
	now := time.Now()
	v := &Introspector{ttl: time.Minute, cache: &idCache{max: 10, m: map[[sha256.Size]byte]cached{}}}
	soon := now.Add(10 * time.Second)
	for _, tt := range []struct {
		exp       time.Time
		atMost    time.Time
		remembers bool
	}{
		{soon, soon, true},
		{time.Time{}, now.Add(time.Minute + time.Second), true},
		{now.Add(time.Hour), now.Add(time.Minute + time.Second), true},
	} {
		id := &Identity{Expiry: tt.exp}
		v.remember(sha256.Sum256([]byte(tt.exp.String())), id)
		e := v.cache.m[sha256.Sum256([]byte(tt.exp.String()))]
		assert.False(t, e.until.After(tt.atMost), "until %v, at most %v", e.until, tt.atMost)
		if !tt.exp.IsZero() {
			assert.False(t, e.until.After(tt.exp))
		}
	}
}
