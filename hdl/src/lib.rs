use rust_hdl::prelude::*;

#[derive(LogicBlock)]
pub struct Exp {
    pub clock: Signal<In, Clock>,
    pub a: Signal<In, Bits<14>>,
    pub b: Signal<In, Bits<24>>,
    pub v: Signal<In, Bit>,
    pub q: Signal<Out, Bits<24>>,
    pub p: Signal<Out, Bits<32>>,
    acc: DFF<Bits<24>>,
    prod: DFF<Bits<32>>,
    s: Signal<Local, Bits<25>>,
    k: Constant<Bits<24>>,
}

impl Logic for Exp {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, acc, prod);
        self.s.next = bit_cast::<25, 24>(self.acc.q.val()) + bit_cast::<25, 14>(self.a.val());
        if self.v.val() & (self.acc.q.val() < self.b.val()) {
            self.acc.d.next = bit_cast::<24, 25>(self.s.val());
        } else if self.s.val().get_bit(24) {
            self.acc.d.next = self.k.val();
        }
        self.prod.d.next = bit_cast::<16, 24>(self.acc.q.val()) * bit_cast::<16, 14>(self.a.val());
        self.q.next = self.acc.q.val();
        self.p.next = self.prod.q.val();
    }
}

pub fn gen() -> String {
    let mut uut = Exp { clock: Default::default(), a: Default::default(), b: Default::default(), v: Default::default(), q: Default::default(), p: Default::default(), acc: Default::default(), prod: Default::default(), s: Default::default(), k: Constant::new(5.into()) };
    uut.connect_all();
    generate_verilog(&uut)
}

#[test]
fn show() { println!("{}", gen()); }
