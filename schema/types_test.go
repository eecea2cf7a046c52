package schema_test

import (
	"encoding/json"
	"errors"
	"net/netip"
	"time"

	"github.com/toolrpc/toolrpc/schema"
)

// The test types: between them, every Go type the binder takes and every
// validate rule the schema maps, at the top and on nested paths.

type Basic struct {
	I8       int8             `json:"i8"`
	I64      int64            `json:"i64"`
	U16      uint16           `json:"u16"`
	U64      uint64           `json:"u64"`
	F32      float32          `json:"f32"`
	F64      float64          `json:"f64"`
	S        string           `json:"s"`
	B        bool             `json:"b"`
	Ptr      *int             `json:"ptr"`
	PtrPtr   **string         `json:"ptr_ptr"`
	Any      any              `json:"any"`
	Raw      json.RawMessage  `json:"raw"`
	Num      json.Number      `json:"num"`
	Bytes    []byte           `json:"bytes"`
	When     time.Time        `json:"when"`
	Addr     netip.Addr       `json:"addr"`
	Arr      [2]int           `json:"arr"`
	Map      map[string]int   `json:"map"`
	IntKeys  map[int8]bool    `json:"int_keys"`
	UintKeys map[uint8]string `json:"uint_keys"`
	Quoted   int8             `json:"quoted,string"`
	QUint    uint16           `json:"q_uint,string"`
	QBool    bool             `json:"q_bool,string"`
	QFloat   float64          `json:"q_float,string"`
	QString  string           `json:"q_string,string"`
	Untagged int
	Skip     int   `json:"-"`
	Level    Level `json:"level"`
}

type Numbers struct {
	Min     int           `json:"min" validate:"min=3"`
	Max     int           `json:"max" validate:"max=10"`
	Gt      int           `json:"gt" validate:"gt=0"`
	Gte     uint          `json:"gte" validate:"gte=5"`
	Lt      int8          `json:"lt" validate:"lt=-1"`
	Lte     float64       `json:"lte" validate:"lte=2.5"`
	Eq      int           `json:"eq" validate:"eq=7"`
	Ne      float32       `json:"ne" validate:"ne=0"`
	Len     int           `json:"len" validate:"len=4"`
	Oneof   int           `json:"oneof" validate:"oneof=1 2 3"`
	UOneof  uint8         `json:"u_oneof" validate:"omitempty,oneof=4 5 +6 07"`
	Req     int           `json:"req" validate:"required"`
	Opt     int           `json:"opt" validate:"omitempty,gte=10"`
	PtrMin  *int          `json:"ptr_min" validate:"min=3"`
	PtrOpt  *int          `json:"ptr_opt" validate:"omitempty,max=5"`
	PtrReq  *float64      `json:"ptr_req" validate:"required"`
	Dur     time.Duration `json:"dur" validate:"omitempty,gte=1s"`
	Hex     int           `json:"hex" validate:"max=0x10"`
	Range   int           `json:"range" validate:"gte=-5,lte=5"`
	Alt     int           `json:"alt" validate:"lt=0|gt=100"`
	F32     float32       `json:"f32" validate:"omitempty,gt=0.5"`
	U8      uint8         `json:"u8" validate:"ne=3"`
	OZ      *int          `json:"oz" validate:"omitzero,min=2"`
	ON      *int          `json:"on" validate:"omitnil,min=2"`
	ReqBool bool          `json:"req_bool" validate:"required"`
	EqBool  bool          `json:"eq_bool" validate:"eq=false"`
	NeBool  *bool         `json:"ne_bool" validate:"omitempty,ne=true"`
	Big     uint64        `json:"big" validate:"omitempty,lt=18446744073709551615"`
	Default int           `json:"default" validate:"isdefault"`
	QMin    int           `json:"q_min,string" validate:"omitempty,min=3"`
}

type Color string

type Strings struct {
	Req        string  `json:"req" validate:"required"`
	Min        string  `json:"min" validate:"min=2"`
	Max        string  `json:"max" validate:"max=3"`
	Len        string  `json:"len" validate:"len=2"`
	Gt         string  `json:"gt" validate:"omitempty,gt=1"`
	Lt         string  `json:"lt" validate:"lt=3"`
	Eq         string  `json:"eq" validate:"omitempty,eq=yes"`
	Ne         string  `json:"ne" validate:"ne=no"`
	Oneof      string  `json:"oneof" validate:"oneof=red green 'light blue'"`
	Named      Color   `json:"named" validate:"omitempty,oneof=cyan magenta"`
	Alpha      string  `json:"alpha" validate:"omitempty,alpha"`
	Alnum      string  `json:"alnum" validate:"omitempty,alphanum"`
	AlphaU     string  `json:"alpha_u" validate:"omitempty,alphaunicode"`
	Numeric    string  `json:"numeric" validate:"omitempty,numeric"`
	Number     string  `json:"number" validate:"omitempty,number"`
	Hex        string  `json:"hex" validate:"omitempty,hexadecimal"`
	Lower      string  `json:"lower" validate:"omitempty,lowercase"`
	Upper      string  `json:"upper" validate:"omitempty,uppercase"`
	ASCII      string  `json:"ascii" validate:"ascii"`
	Printable  string  `json:"printable" validate:"printascii"`
	Starts     string  `json:"starts" validate:"omitempty,startswith=ab"`
	Ends       string  `json:"ends" validate:"omitempty,endswith=.go"`
	Contains   string  `json:"contains" validate:"omitempty,contains=x"`
	Comma      string  `json:"comma" validate:"omitempty,contains=0x2C"`
	Excludes   string  `json:"excludes" validate:"excludes=bad"`
	AnyOf      string  `json:"any_of" validate:"omitempty,containsany=!?"`
	NoneOf     string  `json:"none_of" validate:"excludesall=<>"`
	StartsNot  string  `json:"starts_not" validate:"startsnotwith=-"`
	EndsNot    string  `json:"ends_not" validate:"endsnotwith=/"`
	Email      string  `json:"email" validate:"omitempty,email"`
	URL        string  `json:"url" validate:"omitempty,url"`
	URI        string  `json:"uri" validate:"omitempty,uri"`
	UUID       string  `json:"uuid" validate:"omitempty,uuid"`
	UUID4      string  `json:"uuid4" validate:"omitempty,uuid4"`
	Hostname   string  `json:"hostname" validate:"omitempty,hostname"`
	IPv4       string  `json:"ipv4" validate:"omitempty,ipv4"`
	IPv6       string  `json:"ipv6" validate:"omitempty,ipv6"`
	Date       string  `json:"date" validate:"omitempty,datetime=2006-01-02"`
	Unicode    string  `json:"unicode" validate:"omitempty,min=2,max=3"`
	Alt        string  `json:"alt" validate:"omitempty,alpha|numeric"`
	PtrStr     *string `json:"ptr_str" validate:"omitempty,min=2"`
	PtrReq     *string `json:"ptr_req" validate:"required"`
	Described  string  `json:"described" jsonschema:"what it is"`
	Cross      string  `json:"cross" validate:"omitempty,nefield=Req"`
	Alias      string  `json:"alias" validate:"omitempty,iscolor"`
	NoneOfRule string  `json:"none_of_rule" validate:"omitempty,boolean"`
}

type Collections struct {
	Slice     []int             `json:"slice" validate:"min=1,max=3"`
	Req       []string          `json:"req" validate:"required"`
	Len       []int             `json:"len" validate:"omitempty,len=2"`
	Unique    []int             `json:"unique" validate:"unique"`
	UniqueS   []string          `json:"unique_s" validate:"unique"`
	UniqueP   []*int            `json:"unique_p" validate:"unique"`
	UniqueT   []Pair            `json:"unique_t" validate:"unique"`
	Dive      []int             `json:"dive" validate:"dive,gt=0"`
	DiveStr   []string          `json:"dive_str" validate:"omitempty,dive,min=1,alpha"`
	DiveDive  [][]int           `json:"dive_dive" validate:"dive,max=2,dive,lt=10"`
	Map       map[string]int    `json:"map" validate:"min=1,dive,gte=0"`
	Keys      map[string]string `json:"keys" validate:"dive,keys,min=2,startswith=k,endkeys,required"`
	KeysOnly  map[string]Pair   `json:"keys_only" validate:"dive,keys,max=3,endkeys"`
	IntKeys   map[int16]int     `json:"int_keys" validate:"dive,keys,min=0,endkeys"`
	MapMax    map[int]string    `json:"map_max" validate:"max=2"`
	Arr       [3]int            `json:"arr" validate:"dive,ne=5"`
	ArrLen    [2]int            `json:"arr_len" validate:"len=2"`
	ArrBad    [2]int            `json:"arr_bad" validate:"omitempty,min=3"`
	Bytes     []byte            `json:"bytes" validate:"omitempty,min=2"`
	BytesZ    []byte            `json:"bytes_z" validate:"omitzero,len=1"`
	Ne        []int             `json:"ne" validate:"ne=1"`
	Eq        map[string]bool   `json:"eq" validate:"omitempty,eq=2"`
	OZ        []int             `json:"oz" validate:"omitzero,min=2"`
	ON        map[string]int    `json:"on" validate:"omitnil,min=1"`
	PtrSlice  *[]int            `json:"ptr_slice" validate:"omitempty,min=1"`
	DivePtr   []*int            `json:"dive_ptr" validate:"dive,omitempty,min=2"`
	DiveReq   []*int            `json:"dive_req" validate:"dive,required"`
	AnySlice  []any             `json:"any_slice" validate:"max=2,dive,required"`
	ArrStruct [2]Pair           `json:"arr_struct" validate:"dive"`
}

type Pair struct {
	K string `json:"k" validate:"required"`
	V int    `json:"v"`
}

type Item struct {
	Name string   `json:"name" validate:"required,max=8"`
	Qty  int      `json:"qty" validate:"gte=1,lte=99"`
	Tags []string `json:"tags" validate:"omitempty,dive,alpha"`
}

type Inner struct {
	X int    `json:"x" validate:"omitempty,min=2"`
	Y string `json:"y"`
}

type Node struct {
	V    int     `json:"v" validate:"gte=0"`
	Kids []*Node `json:"kids" validate:"dive"`
	Next *Node   `json:"next"`
}

type Embedded struct {
	E string `json:"e" validate:"required"`
}

type PtrEmbedded struct {
	PA int    `json:"pa" validate:"required"`
	PB string `json:"pb" validate:"omitempty,max=2"`
}

type Nested struct {
	Items     []Item          `json:"items" validate:"required,min=1,dive"`
	Lax       []Item          `json:"lax"`
	First     Item            `json:"first"`
	Opt       *Item           `json:"opt"`
	ReqPtr    *Item           `json:"req_ptr" validate:"required"`
	OptEmpty  Inner           `json:"opt_empty" validate:"omitempty"`
	ReqStruct Inner           `json:"req_struct" validate:"required"`
	ByName    map[string]Item `json:"by_name" validate:"dive"`
	Tree      *Node           `json:"tree"`
	Embedded
	*PtrEmbedded
	hiddenEmbedded
	*unsettable
	Skipped Item    `json:"skipped" validate:"-"`
	Only    Item    `json:"only" validate:"structonly"`
	Holder  Holder  `json:"holder" validate:"omitempty"`
	HolderP *Holder `json:"holder_p"`
}

// hiddenEmbedded is unexported: its fields are promoted all the same.
type hiddenEmbedded struct {
	HE int `json:"he" validate:"omitempty,max=3"`
}

// unsettable is an unexported embedded pointer: the binder cannot
// allocate it, so its members can never be given.
type unsettable struct {
	U int `json:"u"`
}

type Holder struct {
	*PtrEmbedded
	Z int `json:"z" validate:"omitempty,ne=3"`
}

// Annotated has rules the schema cannot say: they are named in
// x-validate, at the object for a field JSON never sets.
type Annotated struct {
	Mode     string `json:"mode"`
	Other    string `json:"other" validate:"omitempty,eqfield=Mode"`
	Hidden   int    `json:"-" validate:"max=1"`
	Inner    Inner  `json:"inner"`
	Embedded `validate:"required"`
	ShadowA
	ShadowB
}

// ShadowA and ShadowB both have X at the same depth: JSON sets neither.
type ShadowA struct {
	X int `validate:"max=1"`
}

type ShadowB struct {
	X string
}

// Level has its own JSON form, which it describes as a Provider.
type Level int

func (l *Level) UnmarshalJSON(b []byte) error {
	switch string(b) {
	case "null":
	case `"low"`:
		*l = 1
	case `"high"`:
		*l = 2
	default:
		return errors.New(`want "low" or "high"`)
	}
	return nil
}

func (Level) JSONSchema() *schema.Schema {
	return &schema.Schema{Enum: []json.RawMessage{json.RawMessage(`"low"`), json.RawMessage(`"high"`)}}
}

type Custom struct {
	Level  Level  `json:"level" validate:"required"`
	Opt    Level  `json:"opt"`
	PtrLvl *Level `json:"ptr_lvl" validate:"omitempty"`
}

// Defaulted has fields with a default: an absent member gets it, so none
// of them is required although their rules refuse the zero value.
type Defaulted struct {
	Limit int             `json:"limit" default:"10" validate:"min=1,max=100"`
	Order string          `json:"order" default:"\"asc\"" validate:"oneof=asc desc"`
	Tags  []string        `json:"tags" default:"[\"a\", \"b\"]" validate:"min=1,max=3"`
	Ratio *float64        `json:"ratio" default:"0.5" validate:"omitempty,gt=0,lt=1"`
	Inner *DefaultedInner `json:"inner"`
	Name  string          `json:"name" validate:"required"`
}

// DefaultedInner is a nested object with a default: it applies when the
// object is given without the member.
type DefaultedInner struct {
	Depth int `json:"depth" default:"2" validate:"min=1"`
}
